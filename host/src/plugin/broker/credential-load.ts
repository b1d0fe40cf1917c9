// One reading of the credentials file and of every file its entries name (AWS keys, Keystone and vSphere secrets, cloud.conf),
// for the credential store: at start and on every poll. An AWS entry without key files is a login entry
// (aws-credential-flow.ts): its source is asked at load and whenever its credentials near their end.
import { errorMessage } from '../../util/error-message.ts';
import { CONFIG_FILE_CAP, readRegularFile } from '../../util/read-regular-file.ts';
import { isStaticEntry, readAwsAccessKey } from './aws-sigv4-entry.ts';
import { awsLoginEntry } from './aws-credential-flow.ts';
import { type Credential, CredentialFileError, parseCredentialFile } from './credential-file.ts';
import { keystoneLoginEntry } from './keystone-flow.ts';
import { vsphereLoginEntry } from './vsphere-flow.ts';
import type { LoginEntry } from './login-sessions.ts';
import type { AwsAccessKey } from './sigv4-signer.ts';

/** What one reading of the files gave; `snapshot` holds everything read, so a change to any file shows. */
export interface Loaded {
  snapshot: string;
  credentials: Credential[];
  awsKeys: Map<string, AwsAccessKey>;
  logins: LoginEntry[];
}

export async function loadCredentials(file: string): Promise<Loaded> {
  let text: string;
  try {
    text = (await readRegularFile(file, CONFIG_FILE_CAP)).toString('utf8');
  } catch (err) {
    throw new CredentialFileError(
      `cannot read credentials file ${file}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`,
    );
  }
  const credentials = parseCredentialFile(text, file);
  const awsKeys = new Map<string, AwsAccessKey>();
  const logins: LoginEntry[] = [];
  const parts = [text];
  for (const [i, credential] of credentials.entries()) {
    const at = `${file}: credentials[${i}] (${credential.name})`;
    if (credential.secret.kind === 'login') {
      const { login: entry } = credential.secret;
      const login =
        entry.flow === 'keystone'
          ? await keystoneLoginEntry(credential, entry.entry, at)
          : await vsphereLoginEntry(credential, entry.entry, at);
      logins.push(login);
      parts.push(login.key);
    }
    if (credential.secret.kind !== 'awsSigV4') continue;
    const { entry } = credential.secret;
    if (!isStaticEntry(entry)) {
      const login = awsLoginEntry(credential, entry.credentials);
      logins.push(login);
      parts.push(login.key);
      continue;
    }
    const key = await readAwsAccessKey(entry, at);
    awsKeys.set(credential.name, key);
    parts.push(key.accessKeyId, key.secretAccessKey, key.sessionToken ?? '');
  }
  return { snapshot: parts.join('\0'), credentials, awsKeys, logins };
}
