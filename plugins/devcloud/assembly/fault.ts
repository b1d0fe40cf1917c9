// Fault builds for chaos tests: a build with `--use DEVCLOUD_FAULT=<n>` passes every load check yet misbehaves on
// one method (1: listRoutes never returns; 2: getLoadBalancer traps), so a hot swap accepts it and the host must
// survive it until the next swap. isDefined() is resolved at compile time: the default build has no fault code.
// @ts-ignore: DEVCLOUD_FAULT exists only under that compiler flag.
const FAULT: i32 = isDefined(DEVCLOUD_FAULT) ? <i32>DEVCLOUD_FAULT : 0;

export const HANG_IN_LIST_ROUTES: bool = FAULT == 1;
export const TRAP_IN_GET_LOAD_BALANCER: bool = FAULT == 2;

/** Spins until the host's call deadline stops the instance. */
export function hang(): void {
  let spins: u64 = 0;
  while (spins >= 0) spins++;
}
