// The console's 404 page: Refine's ErrorComponent (its texts, Back Home). antd draws its 404
// picture for light pages; on the forced dark theme its light disc glares, so it is dimmed here.
import { ErrorComponent } from "@refinedev/antd";

const DIM_PICTURE = ".console-not-found .ant-result-image { filter: brightness(0.6); }";

export function NotFoundPage() {
  return (
    <div className="console-not-found">
      <style>{DIM_PICTURE}</style>
      <ErrorComponent />
    </div>
  );
}
