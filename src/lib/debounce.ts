// Trailing-edge debounce: only the last call within `ms` runs. The console's one debounce (the
// search boxes and the chart's redraw on resize). None of the declared dependencies exports one
// (Refine and antd debounce internally, with lodash and throttle-debounce that are theirs, not
// ours), and a dependency for these few lines would not pay for itself.

export type Debounced<A extends unknown[]> = ((...args: A) => void) & { cancel: () => void };

export function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): Debounced<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = (...args: A) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn(...args);
    }, ms);
  };
  return Object.assign(run, {
    cancel: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  });
}
