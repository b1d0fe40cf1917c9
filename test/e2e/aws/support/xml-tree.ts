// moto's XML answers as a small element tree (read with saxes, the well-kept parser the SDK's reader is fuzzed
// against), so the parity test reads nested lists (a load balancer's zones, a target group's health check) by path
// instead of by regular expressions over the text.
import { SaxesParser } from 'saxes';

export interface XmlNode {
  name: string;
  text: string;
  children: XmlNode[];
}

export function parseXml(body: string): XmlNode {
  const root: XmlNode = { name: '#document', text: '', children: [] };
  const stack: XmlNode[] = [root];
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const node: XmlNode = { name: tag.name, text: '', children: [] };
    (stack.at(-1) as XmlNode).children.push(node);
    stack.push(node);
  });
  parser.on('text', (t) => {
    (stack.at(-1) as XmlNode).text += t;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(body).close();
  return root;
}

/** Every element reached by the path of names (each step among the previous step's children, `*` any name). */
export function select(node: XmlNode, path: string): XmlNode[] {
  let level = [node];
  for (const name of path.split('/')) {
    level = level.flatMap((n) => n.children.filter((c) => name === '*' || c.name === name));
  }
  return level;
}

/** The trimmed text of the first element at the path, or undefined. */
export function textAt(node: XmlNode, path: string): string | undefined {
  return select(node, path)[0]?.text.trim();
}

/** The first element named `name` anywhere below `node` (depth first). */
export function descendant(node: XmlNode, name: string): XmlNode | undefined {
  for (const c of node.children) {
    if (c.name === name) return c;
    const found = descendant(c, name);
    if (found) return found;
  }
  return undefined;
}
