// The flag dump at -v=1: each line as upstream's cloud-controller-manager v0.36.3 prints it for the same flag and
// value (the expected lines are copied from its log, started as lab/peers/peer-ccm.ts starts it, at -v=1).
import { describe, expect, it } from 'vitest';
import { CCM_FLAGS, parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { flagLines } from '../../../host/src/options/print-flags.ts';
import { goDuration } from '../../../host/src/util/duration.ts';

function linesFor(argv: string[]): string[] {
  const parsed = parseCommandLine(argv);
  if (parsed.kind !== 'run') throw new Error('expected a run');
  return flagLines(CCM_FLAGS, parsed.options.flags);
}

describe('flagLines', () => {
  const lines = linesFor([
    '--cloud-provider=devcloud',
    '--leader-elect=false',
    '--configure-cloud-routes=false',
    '--v=1',
  ]);

  it('print every flag once, sorted by name, with --help and --version', () => {
    const names = lines.map((l) => /^FLAG: --([a-z0-9-]+)=/.exec(l)?.[1]);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(Object.keys(CCM_FLAGS).length + 2);
    expect(lines).toContain('FLAG: --help="false"');
    expect(lines).toContain('FLAG: --version="false"');
  });

  it("write each value as upstream's pflag does", () => {
    for (const upstream of [
      'FLAG: --allocate-node-cidrs="false"',
      'FLAG: --authentication-token-webhook-cache-ttl="10s"',
      'FLAG: --authorization-always-allow-paths="[/healthz,/readyz,/livez]"',
      'FLAG: --cloud-provider="devcloud"',
      'FLAG: --cluster-cidr=""',
      'FLAG: --concurrent-node-status-updates="0"',
      'FLAG: --configure-cloud-routes="false"',
      'FLAG: --controller-start-interval="0s"',
      'FLAG: --controllers="[*]"',
      'FLAG: --feature-gates=""',
      'FLAG: --kube-api-burst="30"',
      'FLAG: --kube-api-content-type="application/vnd.kubernetes.protobuf"',
      'FLAG: --kube-api-qps="20"',
      'FLAG: --leader-elect="false"',
      'FLAG: --min-resync-period="12h0m0s"',
      'FLAG: --node-status-update-frequency="5m0s"',
      'FLAG: --requestheader-allowed-names="[]"',
      'FLAG: --v="1"',
      'FLAG: --webhook-secure-port="10260"',
    ]) {
      expect(lines).toContain(upstream);
    }
  });

  it('quote a value so that it stays on its line', () => {
    const quoted = linesFor(['--cloud-provider=a"b\nc']).find((l) => l.startsWith('FLAG: --cloud-provider='));
    expect(quoted).toBe('FLAG: --cloud-provider="a\\"b\\nc"');
  });
});

describe('goDuration', () => {
  it("formats as Go's time.Duration.String", () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [0.0005, '500ns'],
      [0.25, '250µs'],
      [500, '500ms'],
      [1500, '1.5s'],
      [10_000, '10s'],
      [90_000, '1m30s'],
      [300_000, '5m0s'],
      [43_200_000, '12h0m0s'],
      [3_723_500, '1h2m3.5s'],
      [-2000, '-2s'],
    ];
    for (const [ms, text] of cases) expect(goDuration(ms), String(ms)).toBe(text);
  });
});
