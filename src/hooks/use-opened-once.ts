// Whether a dialog has ever been open. A dialog that never opened renders nothing: antd's Modal
// runs its hooks (z-index, styles, motion, focus) even while closed, and a page holds several
// closed ones (logout, delete, the forms) in its first render. Once opened it stays mounted, so its
// closing animation plays and a kept form keeps its values.
import { useState } from "react";

export function useOpenedOnce(open: boolean | undefined): boolean {
  const [opened, setOpened] = useState(open === true);
  // Set during the render that opens it, so the dialog mounts in that same render.
  if (open === true && !opened) setOpened(true);
  return opened || open === true;
}
