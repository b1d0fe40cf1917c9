// The supervisor of a run's shared lab OpenStack (shared.ts): starts a stack, announces it in info.json (or its
// failure in error.txt), and stops it when told (the stop file) or when the run's owner process is gone.
//
// Usage: node lab/clouds/openstack/shared-main.ts <owner pid> <directory>
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../../host/src/util/error-message.ts';
import { processAlive } from '../../process/index.ts';
import { type OpenStack, startOpenStack } from './index.ts';
import { SHARED_FILES, type SharedStackInfo } from './shared.ts';

const [ownerArg, dir] = process.argv.slice(2);
const owner = Number(ownerArg);
if (!(owner > 0) || dir === undefined) {
  console.error('usage: shared-main.ts <owner pid> <directory>');
  process.exit(2);
}
const log = (message: string): void => console.log(`${new Date().toISOString()} ${message}`);

const ownerAlive = (): boolean => processAlive(owner);

const stopAsked = (): boolean => existsSync(join(dir, SHARED_FILES.stop)) || !ownerAlive();

let stack: OpenStack;
try {
  stack = await startOpenStack({ log });
} catch (err) {
  writeFileSync(join(dir, SHARED_FILES.error), `the shared lab OpenStack did not start: ${errorMessage(err)}`);
  process.exit(1);
}
const info: SharedStackInfo = {
  authUrl: stack.authUrl,
  region: stack.region,
  admin: stack.admin,
  ports: stack.ports,
  resources: stack.resources,
  runId: stack.runId,
  runDir: stack.runDir,
  supervisorPid: process.pid,
};
writeFileSync(join(dir, `${SHARED_FILES.info}.tmp`), JSON.stringify(info));
// Readers see the whole file or none.
renameSync(join(dir, `${SHARED_FILES.info}.tmp`), join(dir, SHARED_FILES.info));
log(`serving ${stack.authUrl} for the run of pid ${owner}`);
while (!stopAsked()) await new Promise((resolve) => setTimeout(resolve, 500));
log(ownerAlive() ? 'stop asked: stopping' : `owner ${owner} is gone: stopping`);
const failures = stack.failures();
if (failures.length > 0) log(`services that exited while shared:\n${failures.join('\n')}`);
await stack.stop();
log('stopped');
