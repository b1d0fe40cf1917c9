// The AssemblyScript defaults of the batched methods (ABI.md, "Batched calls" and "Combined batches"), for
// emitAsProvider: what a provider gets for a batched method it does not override.
import type { AbiModel, MethodDef } from './model.ts';

// The default of a batched method: the per-node method once per node, each answer or error in its outcome, so a
// provider overrides the batched method only where its cloud answers many nodes at once.
export function batchDefault(model: AbiModel, m: MethodDef, used: Set<string>): string[] {
  const one = model.methods.find((x) => x.name === m.batchOf[0])!;
  const results = model.types.get(m.response)!.fields.find((f) => f.name === 'results')!.type;
  const outcome = results.kind === 'list' && results.of.kind === 'ref' ? results.of.name : '';
  used.add(one.request).add(outcome);
  return [
    `  ${m.name}(req: ${m.request}, out: ${m.response}): PluginError | null {`,
    '    for (let i = 0; i < req.nodes.length; i++) {',
    `      const one = new ${one.request}();`,
    '      one.node = unchecked(req.nodes[i]);',
    `      const outcome = new ${outcome}();`,
    `      const err = this.${one.name}(one, outcome.ok);`,
    '      if (err !== null) {',
    `        outcome.ok = new ${one.response}();`,
    '        outcome.error = nodeError(err);',
    '      }',
    '      out.results.push(outcome);',
    '    }',
    '    return null;',
    '  }',
  ];
}

const outcomeOf = (model: AbiModel, response: string): string => {
  const results = model.types.get(response)!.fields.find((f) => f.name === 'results')!.type;
  return results.kind === 'list' && results.of.kind === 'ref' ? results.of.name : '';
};

// One step of a combined batch's default: the listed method's batched form for the nodes still asked; a step after
// the first that fails as a whole fails its part of those nodes only, as the per-node calls would have.
function combinedStep(model: AbiModel, m: MethodDef, step: number, used: Set<string>): string[] {
  const name = m.batchOf[step]!;
  const batch = model.methods.find((x) => x.batchOf.length === 1 && x.batchOf[0] === name)!;
  const part = model.types.get(outcomeOf(model, m.response))!.fields[step]!.name;
  const last = step === m.batchOf.length - 1;
  const answer = model.types.get(model.methods.find((x) => x.name === name)!.response)!.fields[0]!.name;
  used.add(batch.response);
  const failed =
    step === 0
      ? ['      if (err !== null) return err;']
      : [
          '      if (err !== null) {',
          `        for (let j = 0; j < asked.length; j++) unchecked(out.results[unchecked(asked[j])]).${part}.error = nodeError(err);`,
          '        return null;',
          '      }',
        ];
  return [
    `    if (asked.length > 0) {`,
    `      const part = new ${m.request}();`,
    '      for (let j = 0; j < asked.length; j++) part.nodes.push(unchecked(req.nodes[unchecked(asked[j])]));',
    `      const got = new ${batch.response}();`,
    `      const err = this.${batch.name}(part, got);`,
    ...failed,
    '      if (got.results.length != asked.length) {',
    `        return internal(\`${batch.name} answered \${got.results.length} results for \${asked.length} nodes\`);`,
    '      }',
    ...(last ? [] : ['      const next = new Array<i32>();']),
    '      for (let j = 0; j < asked.length; j++) {',
    '        const o = unchecked(got.results[j]);',
    `        unchecked(out.results[unchecked(asked[j])]).${part} = o;`,
    ...(last ? [] : [`        if (o.error.code == "" && o.ok.${answer}) next.push(unchecked(asked[j]));`]),
    '      }',
    ...(last ? [] : ['      asked = next;']),
    '    }',
  ];
}

// The default of a combined batch: the listed methods' batched forms in turn, each for the nodes every earlier one
// answered true for; a node not asked keeps its part's defaults (false, no error).
export function combinedDefault(model: AbiModel, m: MethodDef, used: Set<string>): string[] {
  const outcome = outcomeOf(model, m.response);
  used.add(outcome);
  const steps = m.batchOf.flatMap((_, step) => combinedStep(model, m, step, used));
  return [
    `  ${m.name}(req: ${m.request}, out: ${m.response}): PluginError | null {`,
    '    let asked = new Array<i32>();',
    '    for (let i = 0; i < req.nodes.length; i++) {',
    `      out.results.push(new ${outcome}());`,
    '      asked.push(i);',
    '    }',
    ...steps,
    '    return null;',
    '  }',
  ];
}
