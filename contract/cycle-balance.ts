// A billing cycle's balance and amount due, shared by the server and the console (a plain module:
// the console imports its values at run time, so no schema comes along).

/**
 * A cycle's Balance as the customer's totals strip shows it (spec §2): the workspace groups' usage
 * beyond their prepaid amounts (their positive remaining balances) plus the unattributed cost;
 * payments are not subtracted. The operator's billing cycles answer the same figure.
 */
export function cycleBalanceMicros(
  unattributedMicros: bigint,
  groupBalancesMicros: Iterable<bigint>,
): bigint {
  let total = unattributedMicros;
  for (const remaining of groupBalancesMicros) if (remaining > 0n) total += remaining;
  return total;
}

/** What is still to pay on a cycle: its balance less its payments, never below zero. */
export const amountDueMicros = (balanceMicros: bigint, paidMicros: bigint): bigint =>
  balanceMicros > paidMicros ? balanceMicros - paidMicros : 0n;
