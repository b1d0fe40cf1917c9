// The test CA vcsim's certificate is signed by, made with the openssl CLI in the run's directory: clients trust vcsim
// through the CA file (as a vCenter with a private CA is trusted), never by skipping verification.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export interface TestCa {
  /** The CA certificate (PEM file) clients trust. */
  caFile: string;
  caPem: string;
  /** vcsim's certificate for 127.0.0.1 and its key. */
  certFile: string;
  keyFile: string;
}

/** A CA and a server certificate for 127.0.0.1 (and localhost) signed by it, valid for two days. */
export async function createTestCa(dir: string): Promise<TestCa> {
  const openssl = async (args: string[]): Promise<void> => {
    try {
      await execFileP('openssl', args, { cwd: dir });
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr ?? '';
      throw new Error(`openssl ${args[0]} failed (is openssl installed?): ${stderr.trim() || String(err)}`, {
        cause: err,
      });
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=wasm-ccm lab vSphere CA',
  ]);
  await openssl(['req', ...ec, '-keyout', 'vcsim.key', '-out', 'vcsim.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(
    join(dir, 'vcsim.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    'vcsim.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'vcsim.pem',
    '-days',
    '2',
    '-extfile',
    'vcsim.ext',
  ]);
  const caFile = join(dir, 'ca.pem');
  return {
    caFile,
    caPem: readFileSync(caFile, 'utf8'),
    certFile: join(dir, 'vcsim.pem'),
    keyFile: join(dir, 'vcsim.key'),
  };
}
