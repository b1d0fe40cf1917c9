// The kit's own reads of the vendor's cloud: a GET the host makes (never the plugin) under the plugin's allow-list and
// brokered credentials, from a fixture URL template filled with what earlier checks learned, answered with JSON.
import { errorMessage } from '../../util/error-message.ts';
import { type CheckContext, fail, incomplete, skip } from '../check.ts';
import { NOT_PROBED } from '../report.ts';

type Probed = 'backends' | 'loadBalancers';

const FIELD: Record<Probed, string> = { backends: 'backendProbe', loadBalancers: 'loadBalancerProbe' };
const WITHOUT: Record<Probed, string> = {
  backends: 'a provider that ignores its node list would pass',
  loadBalancers: 'a provider that creates another load balancer on every ensure, or whose delete leaves it, would pass',
};

/**
 * Returns when the fixture gives the probe; otherwise skips with the vendor's reason, or leaves the check
 * incomplete when the fixture gives none.
 */
export function requireProbe(ctx: CheckContext, probed: Probed): void {
  const given = probed === 'backends' ? ctx.fixture.backendProbe : ctx.fixture.loadBalancerProbe;
  if (given) return;
  const reason = ctx.fixture.notProbed[probed];
  if (reason !== undefined) skip(`${NOT_PROBED}${reason}`);
  const field = FIELD[probed];
  incomplete(
    `no ${field} in the fixture, and no ${field}.unavailable saying why your cloud cannot be probed: ` +
      `without it ${WITHOUT[probed]}`,
  );
}

/** The fixture's URL template with `{lb}`, `{ingress}` and `{uid}` put in, each kept inside its URL component. */
export function fillProbeUrl(ctx: CheckContext, template: string): string {
  const ingress = ctx.state.lbStatus?.ingress[0];
  const values: Record<string, string | undefined> = {
    lb: ctx.state.lbName,
    ingress: ingress ? ingress.ip || ingress.hostname : undefined,
    uid: ctx.fixture.service.uid,
  };
  return template.replace(/\{(lb|ingress|uid)\}/g, (_m, key: string) => {
    const value = values[key];
    if (!value) skip(`the probe needs {${key}}, which no earlier check found`);
    // Encoding leaves dots alone, and a URL drops `.` and walks up with `..`: the GET would read another resource.
    if (value === '.' || value === '..') {
      fail(`{${key}} is "${value}", a dot segment in a URL: the probe cannot read that load balancer`);
    }
    return encodeURIComponent(value);
  });
}

/** GETs `url` and parses its JSON; fails naming the probe (`what`) and what came back. */
export async function getJson(ctx: CheckContext, url: string, what: string): Promise<unknown> {
  let answer;
  try {
    answer = await ctx.hostGet(url);
  } catch (err) {
    fail(`${what} GET ${url} failed: ${errorMessage(err)}`);
  }
  if (answer.status !== 200) fail(`${what} GET ${url} answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    fail(`${what} GET ${url} answered no JSON: ${answer.body.slice(0, 200)}`);
  }
}
