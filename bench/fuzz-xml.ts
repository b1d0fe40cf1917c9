// Differential fuzzing of the plugin SDK's XML reader (plugin-sdk/assembly/xml/) against saxes: documents shaped like
// moto's EC2 and ELBv2 answers, free-form documents and their mutations; the same events or both refuse, no trap.
// Allowed divergences are listed in plugin-sdk/assembly/xml/README.md.
//
// Usage: npm run fuzz:xml -- [--cases=100000] [--seed=1] [--out=bench/results/fuzz-xml.json]
// Exit status 1 when there is an unexplained divergence or a trap (each printed with its case, to replay).
import { XML_ALLOWED_DIVERGENCES } from '../test/support/xml-fuzz/judge.ts';
import { runXmlFuzz } from '../test/support/xml-fuzz/run.ts';
import { fuzzArgs, reportFuzz } from './lib/fuzz-cli.ts';

const args = fuzzArgs('fuzz-xml');
const report = await runXmlFuzz({ cases: args.cases, seed: args.seed });
reportFuzz('fuzz-xml', args, report, 'well-formed (both accepted)', XML_ALLOWED_DIVERGENCES);
