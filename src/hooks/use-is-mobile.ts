// Below 768 px the sider becomes a drawer (spec §1, §9).
import { DESKTOP_QUERY } from "../lib/breakpoints";
import { useMediaQuery } from "./use-media-query";

export const useIsMobile = (): boolean => !useMediaQuery(DESKTOP_QUERY, true);
