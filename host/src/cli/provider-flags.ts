// The flags that name a provider plugin and the files it is tried with, shared by `wasm-ccm plugin test` and
// `wasm-ccm dev` so that one command line serves both.

/** node:util parseArgs options for --plugin, --fixture, --cloud-config, --credentials and --allowed-hosts. */
export const PROVIDER_FLAG_OPTIONS = {
  plugin: { type: 'string' },
  fixture: { type: 'string' },
  'cloud-config': { type: 'string' },
  credentials: { type: 'string' },
  'allowed-hosts': { type: 'string', multiple: true },
} as const;

/** --allowed-hosts values, each a comma-separated list, as one list without blanks. */
export function allowedHostList(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((h) => h.split(','))
    .map((h) => h.trim())
    .filter((h) => h !== '');
}
