// CPU the broker adds to a request that carried a credential: the scan of the answer's headers and body for the
// secret values it attached, in every spelling redact.ts looks for (host/src/plugin/broker/redact.ts). Requests
// without a credential are not scanned. Two kinds of body: plain JSON, and JSON full of escapes (`\/`, `%2F`,
// `&amp;`, `\u00e9`), where the secret, when there, is itself escaped.
//
// Usage: node bench/plugin-runtime/broker-redaction.ts [--out=bench/results/broker-redaction.json]
import { parseArgs } from 'node:util';
import { SecretRedactor } from '../../host/src/plugin/broker/redact.ts';
import { loadNow, writeResults, formatTable } from '../../lab/measure/index.ts';

const { values } = parseArgs({
  options: { out: { type: 'string', default: new URL('../results/broker-redaction.json', import.meta.url).pathname } },
});

// A basic-auth credential (password and base64 form) and a custom header: three needles, as many as one gets.
const secrets = ['pa55word-0123456789', Buffer.from('user:pa55word-0123456789').toString('base64'), 'key-abc-999-xyz'];
const headers = { 'content-type': 'application/json', date: new Date().toUTCString(), 'x-request-id': 'r-1234567890' };

type Kind = 'plain' | 'escaped';

function bodyOf(bytes: number, withSecret: boolean, kind: Kind): Buffer[] {
  const note = kind === 'escaped' ? 'a\\/b %2F &amp; caf\\u00e9' : 'none';
  const item = JSON.stringify({ id: 'i-0123456789abcdef', zone: 'dc-east-1a', note, addresses: ['10.0.0.1'] });
  let text = `[${item}`;
  while (text.length < bytes - item.length - 2) text += `,${item}`;
  if (withSecret) text += `,"${kind === 'escaped' ? (secrets[0] as string).replace(/!/g, '\\u0021') : secrets[0]}"`;
  text += ']';
  // As the connection delivers it: 16 KiB chunks.
  const all = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += 16_384) chunks.push(all.subarray(at, at + 16_384));
  return chunks;
}

function cpuUsPerCall(chunks: Buffer[], calls: number): number {
  const redactor = new SecretRedactor(secrets);
  for (let i = 0; i < Math.min(calls, 50); i++) redactor.body(chunks); // warm-up
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const r = new SecretRedactor(secrets); // one per request, as the broker makes them
    r.headers(headers);
    r.body(chunks);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const loadBefore = loadNow();
const rows: Array<{ body: Kind; body_bytes: number; secret_in_body: boolean; cpu_us_per_request: number }> = [];
for (const kind of ['plain', 'escaped'] as const) {
  for (const bytes of [1024, 64 * 1024, 1024 * 1024, 8 * 1024 * 1024]) {
    for (const withSecret of [false, true]) {
      const calls = Math.max(20, Math.round(20_000_000 / bytes));
      rows.push({
        body: kind,
        body_bytes: bytes,
        secret_in_body: withSecret,
        cpu_us_per_request: cpuUsPerCall(bodyOf(bytes, withSecret, kind), calls),
      });
    }
  }
}
console.log(
  formatTable(
    ['body', 'answer body', 'secret in it', 'CPU us per request'],
    rows.map((r) => [
      r.body,
      `${r.body_bytes / 1024} KiB`,
      r.secret_in_body ? 'yes' : 'no',
      r.cpu_us_per_request.toFixed(1),
    ]),
  ),
);
writeResults(values.out, 'broker-redaction', loadBefore, {
  secrets: secrets.length,
  rows,
});
