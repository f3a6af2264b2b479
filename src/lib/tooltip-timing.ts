// Tooltip timing (spec §9): a tooltip opens 700 ms after the pointer rests on its trigger; moving
// to another trigger within 300 ms of one closing (or while one is open) opens the next at once.

export const TOOLTIP_DELAY_MS = 700;
export const TOOLTIP_SKIP_DELAY_MS = 300;

type Clock = {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  now: () => number;
};

const realClock: Clock = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};

export type TooltipTiming<K> = {
  /** The pointer entered the trigger `key`. */
  enter: (key: K) => void;
  /** The pointer left the trigger `key` (or the trigger went away). */
  leave: (key: K) => void;
  /** Cancels a pending open and closes what is open, without starting the skip window. */
  reset: () => void;
};

/** One timing shared by a group of triggers; `onOpen` gets the open trigger's key or null. */
export function createTooltipTiming<K>(
  onOpen: (key: K | null) => void,
  { delay = TOOLTIP_DELAY_MS, skipDelay = TOOLTIP_SKIP_DELAY_MS, clock = realClock } = {},
): TooltipTiming<K> {
  let open: K | null = null;
  let pending: unknown;
  let closedAt = Number.NEGATIVE_INFINITY;
  const cancel = () => {
    if (pending !== undefined) clock.clearTimeout(pending);
    pending = undefined;
  };
  const show = (key: K) => {
    cancel();
    open = key;
    onOpen(key);
  };
  return {
    enter(key) {
      cancel();
      if (open !== null || clock.now() - closedAt < skipDelay) {
        show(key);
        return;
      }
      pending = clock.setTimeout(() => {
        pending = undefined;
        show(key);
      }, delay);
    },
    leave(key) {
      if (open === key) {
        open = null;
        closedAt = clock.now();
        onOpen(null);
      }
      cancel();
    },
    reset() {
      cancel();
      if (open !== null) {
        open = null;
        onOpen(null);
      }
    },
  };
}
