// Below 768 px the sider becomes a drawer and the billing chart is hidden (spec §1, §9).
export const MOBILE_BREAKPOINT_PX = 768;
export const DESKTOP_QUERY = `(min-width: ${MOBILE_BREAKPOINT_PX}px)`;
