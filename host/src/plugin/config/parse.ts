// Reads and validates the plugin configuration file (YAML or JSON; JSON is YAML). Strict: unknown fields, a missing
// file, a key that is not Ed25519, a class routed to a provider that serves no load balancers — each is an error
// naming its field path, raised at start-up (exit 2) rather than discovered at the first hot swap.
import { dirname, isAbsolute, resolve } from 'node:path';
import { CAPABILITIES, type Capability } from '../../abi/index.ts';
import { AllowListError } from '../broker/allow-list.ts';
import { decodeSignature, parseEd25519PublicKey, SignatureError } from '../module/ed25519.ts';
import { Field, PluginConfigError } from './field.ts';
import { loadConfigYaml } from './yaml-document.ts';
import { CredentialFileError } from '../broker/credential-file.ts';
import {
  checkAllowedHost,
  checkCredentialsText,
  LIMIT_RANGES,
  normalizeSha256,
  SHA256_PIN,
  SHA256_PIN_WHAT,
} from './rules.ts';
import {
  checkRegularFileSync,
  CONFIG_FILE_CAP,
  type FileCap,
  KEY_FILE_CAP,
  moduleFileCap,
  readRegularFileSync,
  unreadableReason,
} from '../../util/read-regular-file.ts';
import { DEFAULT_MAX_MODULE_MB } from '../module/module-gzip.ts';
import type {
  LimitDefaults,
  PluginConfig,
  ProviderConfig,
  ProviderLimits,
  ProviderSource,
  ShadowPolicy,
  SignaturePolicy,
} from './types.ts';

export { PluginConfigError } from './field.ts';

const TOP_FIELDS = ['providers', 'defaultProvider', 'loadBalancerClasses'] as const;
const PROVIDER_FIELDS = [
  'name',
  'source',
  'sha256',
  'signature',
  'publicKey',
  'publicKeyFile',
  'allowedHosts',
  'credentials',
  'limits',
  'cloudConfig',
  'cloudConfigFile',
  'capabilities',
  'shadow',
] as const;

// A DNS label: names appear in metric labels, events and URLs.
const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]{1,253}$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

const DEFAULT_SHADOW: ShadowPolicy = { calls: 20, seconds: 30 };

export interface ParseOptions {
  /** Relative paths in the file are relative to this directory (the config file's). */
  baseDir: string;
  /** From --plugin-call-timeout, --plugin-memory-limit-mb, --plugin-pool-size. */
  defaults: LimitDefaults;
}

/** Reads `path` and parses it; errors carry the field path. */
export function loadPluginConfigFile(path: string, defaults: LimitDefaults): PluginConfig {
  let text: string;
  try {
    text = readRegularFileSync(path, CONFIG_FILE_CAP).toString('utf8');
  } catch (err) {
    throw new PluginConfigError('', `cannot read "${path}" (${unreadableReason(err)})`);
  }
  return parsePluginConfig(text, { baseDir: dirname(resolve(path)), defaults });
}

export function parsePluginConfig(text: string, options: ParseOptions): PluginConfig {
  if (text.trim() === '') throw new PluginConfigError('', 'the file is empty; expected a mapping with "providers"');
  const doc = loadConfigYaml(text);
  const root = new Field('', doc);
  if (!root.present) root.fail('the file is empty; expected a mapping with "providers"');
  root.mapping(TOP_FIELDS);
  const entries = root.child('providers').list();
  if (entries.length === 0) root.child('providers').fail('must list at least one provider');
  const providers = entries.map((entry) => parseProvider(entry, options));
  const byName = new Map<string, ProviderConfig>();
  providers.forEach((p, i) => {
    if (byName.has(p.name)) entries[i]?.child('name').fail(`duplicate provider name "${p.name}"`);
    byName.set(p.name, p);
  });

  const defaultField = root.child('defaultProvider');
  let defaultProvider: string;
  if (defaultField.present) {
    defaultProvider = defaultField.string();
    if (!byName.has(defaultProvider)) defaultField.fail(`no provider is named "${defaultProvider}"`);
  } else if (providers.length === 1) {
    defaultProvider = (providers[0] as ProviderConfig).name;
  } else {
    throw defaultField.error('required when several providers are listed');
  }

  const loadBalancerClasses = new Map<string, string>();
  const classesField = root.child('loadBalancerClasses');
  if (classesField.present) {
    for (const [cls, target] of Object.entries(classesField.mapping())) {
      const field = classesField.child(cls);
      if (!DNS_SUBDOMAIN.test(cls.split('/')[0] ?? '') || cls.length > 253) {
        field.fail('a loadBalancerClass must be a label-style name such as "example.com/internal"');
      }
      const provider = field.string();
      const config = byName.get(provider);
      if (config === undefined) throw field.error(`no provider is named "${String(target)}"`);
      if (config.capabilities !== undefined && !config.capabilities.includes('loadBalancer')) {
        field.fail(
          `provider "${provider}" does not serve loadBalancer (its capabilities: ${config.capabilities.join(', ')})`,
        );
      }
      loadBalancerClasses.set(cls, provider);
    }
    // A default provider without loadBalancer is fine (vSphere's nodes with AWS's load balancers, say): the service
    // controller then serves only the routed classes and leaves classless Services alone.
  }
  return { providers, defaultProvider, loadBalancerClasses };
}

function parseProvider(entry: Field, ctx: ParseOptions): ProviderConfig {
  entry.mapping(PROVIDER_FIELDS);
  const name = entry.child('name').string({ pattern: NAME, what: 'a DNS label (lower-case letters, digits, "-")' });
  const limits = parseLimits(entry.child('limits'), ctx.defaults);
  const source = parseSource(entry.child('source'), ctx, (limits.maxModuleMB ?? DEFAULT_MAX_MODULE_MB) * 1048576);
  const sha256 = entry.child('sha256').optionalString({ pattern: SHA256_PIN, what: SHA256_PIN_WHAT });
  const allowedHosts = entry
    .child('allowedHosts')
    .optionalList()
    .map((f) => {
      const host = f.string();
      try {
        checkAllowedHost(host);
      } catch (err) {
        if (err instanceof AllowListError) f.fail(err.message);
        throw err;
      }
      return host;
    });
  let credentialsFile: string | undefined;
  const credentials = entry.child('credentials');
  if (credentials.present) {
    credentials.mapping(['file']);
    const file = credentials.child('file');
    credentialsFile = resolvePath(file, ctx);
    try {
      checkCredentialsText(readAt(file, credentialsFile, CONFIG_FILE_CAP), credentialsFile);
    } catch (err) {
      if (err instanceof CredentialFileError) file.fail(err.message);
      throw err;
    }
  }
  return {
    name,
    source,
    sha256: sha256 === undefined ? undefined : normalizeSha256(sha256),
    signature: parseSignature(entry, ctx),
    allowedHosts,
    credentialsFile,
    limits,
    cloudConfig: parseCloudConfig(entry, ctx),
    capabilities: parseCapabilities(entry.child('capabilities')),
    shadow: parseShadow(entry.child('shadow')),
  };
}

function parseSource(field: Field, ctx: ParseOptions, maxModuleBytes: number): ProviderSource {
  const record = field.mapping(['file', 'configMap']);
  const kinds = Object.keys(record).filter((k) => record[k] !== undefined && record[k] !== null);
  if (kinds.length !== 1) field.fail('give exactly one of file or configMap');
  if (kinds[0] === 'file') {
    return { kind: 'file', path: checkedModulePath(field.child('file'), ctx, moduleFileCap(maxModuleBytes)) };
  }
  const cm = field.child('configMap');
  cm.mapping(['namespace', 'name', 'key']);
  return {
    kind: 'configMap',
    namespace: cm.child('namespace').string({ pattern: NAME, what: 'a namespace name' }),
    name: cm.child('name').string({ pattern: DNS_SUBDOMAIN, what: 'a ConfigMap name' }),
    key: cm.child('key').string({ pattern: CONFIGMAP_KEY, what: 'a ConfigMap key ([-._a-zA-Z0-9]+)' }),
  };
}

function parseSignature(entry: Field, ctx: ParseOptions): SignaturePolicy | undefined {
  const signature = entry.child('signature');
  const inline = entry.child('publicKey');
  const file = entry.child('publicKeyFile');
  if (inline.present && file.present) file.fail('give publicKey or publicKeyFile, not both');
  if (!inline.present && !file.present) {
    if (signature.present) signature.fail('needs publicKey or publicKeyFile to check it against');
    return undefined;
  }
  const keyField = inline.present ? inline : file;
  const pem = inline.present ? inline.string() : readText(file, ctx, KEY_FILE_CAP);
  let publicKey;
  try {
    publicKey = parseEd25519PublicKey(pem);
  } catch (err) {
    if (err instanceof SignatureError) keyField.fail(err.message);
    throw err;
  }
  let value: string | undefined;
  if (signature.present) {
    value = signature.string();
    try {
      decodeSignature(value);
    } catch (err) {
      if (err instanceof SignatureError) signature.fail(err.message);
      throw err;
    }
  }
  return { publicKey, signature: value };
}

function parseLimits(field: Field, defaults: LimitDefaults): ProviderLimits {
  if (!field.present) return { ...defaults };
  field.mapping(['callTimeout', 'memoryLimitMB', 'poolSize', 'poolMinSize', 'poolIdleTimeout', 'maxModuleMB']);
  const timeout = field.child('callTimeout');
  const memory = field.child('memoryLimitMB');
  const pool = field.child('poolSize');
  const min = field.child('poolMinSize');
  const idle = field.child('poolIdleTimeout');
  const limits: ProviderLimits = {
    callTimeoutMs: timeout.present ? timeout.duration(LIMIT_RANGES.callTimeoutMs) : defaults.callTimeoutMs,
    memoryLimitMB: memory.present ? memory.integer(LIMIT_RANGES.memoryLimitMB) : defaults.memoryLimitMB,
    poolSize: pool.present ? pool.integer(LIMIT_RANGES.poolSize) : defaults.poolSize,
  };
  if (min.present) {
    limits.poolMinSize = min.integer(LIMIT_RANGES.poolMinSize);
    if (limits.poolSize > 0 && limits.poolMinSize > limits.poolSize) {
      min.fail(`must not be above poolSize (${limits.poolSize}), got ${limits.poolMinSize}`);
    }
  }
  if (idle.present) limits.poolIdleTimeoutMs = idle.duration(LIMIT_RANGES.poolIdleTimeoutMs);
  const maxModule = field.child('maxModuleMB');
  if (maxModule.present) limits.maxModuleMB = maxModule.integer(LIMIT_RANGES.maxModuleMB);
  return limits;
}

function parseCloudConfig(entry: Field, ctx: ParseOptions): string {
  const inline = entry.child('cloudConfig');
  const file = entry.child('cloudConfigFile');
  if (inline.present && file.present) file.fail('give cloudConfig or cloudConfigFile, not both');
  if (file.present) return readText(file, ctx, CONFIG_FILE_CAP);
  if (!inline.present) return '';
  // A mapping is written out as JSON, so a JSON cloud config can be given as YAML in place.
  if (typeof inline.value === 'object') return JSON.stringify(inline.mapping());
  if (typeof inline.value !== 'string') throw inline.error('expected a string (the cloud config text) or a mapping');
  return inline.value;
}

function parseCapabilities(field: Field): Capability[] | undefined {
  if (!field.present) return undefined;
  const seen = new Set<Capability>();
  for (const item of field.list()) {
    const name = item.string();
    if (!Object.hasOwn(CAPABILITIES, name)) {
      item.fail(`unknown capability "${name}" (known: ${Object.keys(CAPABILITIES).join(', ')})`);
    }
    if (seen.has(name as Capability)) item.fail(`"${name}" is listed twice`);
    seen.add(name as Capability);
  }
  if (seen.size === 0) field.fail('must list at least one capability');
  return [...seen];
}

function parseShadow(field: Field): ShadowPolicy | undefined {
  if (!field.present) return undefined;
  if (typeof field.value === 'boolean') return field.boolean() ? { ...DEFAULT_SHADOW } : undefined;
  field.mapping(['calls', 'seconds']);
  const calls = field.child('calls');
  const seconds = field.child('seconds');
  if (!calls.present && !seconds.present) field.fail('give calls, seconds, or both (or shadow: true)');
  return {
    calls: calls.present ? calls.integer({ min: 1, max: 10_000 }) : DEFAULT_SHADOW.calls,
    seconds: seconds.present ? seconds.integer({ min: 1, max: 3600 }) : DEFAULT_SHADOW.seconds,
  };
}

function resolvePath(field: Field, ctx: ParseOptions): string {
  const path = field.string();
  return isAbsolute(path) ? path : resolve(ctx.baseDir, path);
}

/** Resolves the module's path and checks it opens as a regular file within the cap (it is read when loaded). */
function checkedModulePath(field: Field, ctx: ParseOptions, cap: FileCap): string {
  const path = resolvePath(field, ctx);
  try {
    checkRegularFileSync(path, cap);
  } catch (err) {
    throw field.error(`cannot read "${path}" (${unreadableReason(err)})`);
  }
  return path;
}

function readText(field: Field, ctx: ParseOptions, cap: FileCap): string {
  return readAt(field, resolvePath(field, ctx), cap);
}

function readAt(field: Field, path: string, cap: FileCap): string {
  try {
    return readRegularFileSync(path, cap).toString('utf8');
  } catch (err) {
    throw field.error(`cannot read "${path}" (${unreadableReason(err)})`);
  }
}
