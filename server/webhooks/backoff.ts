/** A delivery is given up (failed) after this many attempts. */
export const MAX_DELIVERY_ATTEMPTS = 8;

// Delays after the 1st, 2nd, … failed attempt in units of the base (30 s by default): 30 s, 2 min,
// 10 min, 1 h, 6 h, then 6 h again; about 25 hours from the first attempt to the last.
const STEPS = [1, 4, 20, 120, 720, 720, 720];

/**
 * How long to wait after failed attempt number `attempts` (1-based), in milliseconds: the step
 * times the base, with ±20% jitter so that many deliveries failing together (an endpoint down)
 * do not all come back at the same instant. `random` is injectable for tests.
 */
export function retryDelayMs(
  attempts: number,
  baseSeconds: number,
  random: () => number = Math.random,
): number {
  const step = STEPS[Math.min(Math.max(attempts, 1), STEPS.length) - 1] as number;
  const jitter = 0.8 + 0.4 * random();
  return Math.round(step * baseSeconds * 1000 * jitter);
}
