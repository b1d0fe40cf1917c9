// Whether each credential of the kit's --credentials reaches the hosts the plugin may call. The runtime only logs a
// credential that no allowed host matches; in the kit it is a warning and a failing check, since a vendor's README
// copied into a cluster would carry the same mistake. A match that holds only through the default-port rule
// (`api.example` vs `api.example:443`) is reported too: it attaches for one scheme only.
import { silentLogger } from '../log/logger.ts';
import { CredentialStore, HostAllowList } from '../plugin/index.ts';

export async function credentialWarnings(file: string, allowedHosts: readonly string[]): Promise<string[]> {
  const store = await CredentialStore.open({ file, reloadIntervalMs: 0, logger: silentLogger });
  try {
    const allowList = new HostAllowList(allowedHosts);
    const none = store
      .unreachableHosts(allowList)
      .map(
        (u) =>
          `credential ${u.credential}: host ${u.host} matches no allowed host (${allowList}), so it is never attached` +
          (u.allowedHost ? `; did you mean ${u.allowedHost}?` : ''),
      );
    const byPort = store
      .defaultPortMatches(allowList)
      .map(
        (m) =>
          `credential ${m.credential}: host ${m.host} matches allowed host ${m.allowedHost} only through the default-port rule (no port means 443 for https, 80 for http): write the same host:port on both sides`,
      );
    return [...none, ...byPort];
  } finally {
    store.close();
  }
}
