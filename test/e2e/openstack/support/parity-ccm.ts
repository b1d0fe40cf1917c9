// The two CCMs of the OpenStack parity test, started alike: the same controllers and flags, and the same cloud.conf
// (the project user's Keystone login in [Global], the router in [Route], OCCM's wait for a load balancer in
// [Environment] for the plugin, spelt so that OCCM's parser skips it; OCCM reads it from its environment).
import {
  CCMProcess,
  openStackCloudConf,
  openStackPluginArgs,
  writeOpenStackCCMFiles,
} from '../../../../lab/ccm/index.ts';
import { OCCM } from '../../../../lab/peers/index.ts';
import { type Estate, keystoneLogin } from './estate.ts';
import {
  CLUSTER_CIDR,
  type OpenStackImpl,
  PARITY_CLUSTER,
  type ParityContext,
  type RunningCCM,
} from './parity-side.ts';

/**
 * Octavia's noop worker takes seconds per change on a busy machine: the plugin may wait 16 steps (72 s) in a call,
 * as OCCM waits in its (23 steps by default), and the host's deadline is above that.
 */
const WAIT_STEPS = 16;
const CALL_TIMEOUT = '100s';

/** Flags both CCMs get. */
export function commonFlags(): string[] {
  return [
    '--leader-elect=false',
    '--controllers=cloud-node,cloud-node-lifecycle,service,route',
    `--cluster-name=${PARITY_CLUSTER}`,
    `--cluster-cidr=${CLUSTER_CIDR}`,
    '--configure-cloud-routes=true',
    '--node-monitor-period=1s',
    '--route-reconciliation-period=2s',
  ];
}

/** OCCM's cloud.conf for the estate's project user, the same file for both CCMs. */
export function cloudConf(estate: Estate): string {
  return openStackCloudConf({
    login: keystoneLogin(estate.project),
    routerId: estate.network.routerId,
    extra: `[Environment]\noccm-wait-lb-active-steps = ${WAIT_STEPS}\n`,
  });
}

export function startSideCCM(impl: OpenStackImpl, ctx: ParityContext, estate: Estate): RunningCCM {
  const conf = cloudConf(estate);
  if (impl === 'occm') {
    const occm = new OCCM({
      info: ctx.info,
      cloudConf: conf,
      args: commonFlags(),
      env: { OCCM_WAIT_LB_ACTIVE_STEPS: String(WAIT_STEPS) },
    });
    return {
      stop: () => occm.stop(),
      running: () => occm.process.running,
      tail: () => occm.process.tail(),
      logPath: occm.process.logPath,
    };
  }
  const files = writeOpenStackCCMFiles(ctx.info.dir, 'osparity', conf);
  const ccm = new CCMProcess({
    info: ctx.info,
    token: ctx.token,
    args: [...openStackPluginArgs(files, CALL_TIMEOUT), ...commonFlags()],
  });
  return {
    stop: () => ccm.stop(),
    running: () => ccm.process.running,
    tail: () => ccm.process.tail(),
    logPath: ccm.process.logPath,
  };
}
