// A small element tree over XmlReader, for answers of a few kilobytes that a provider reads by path:
// `doc.path("reservationSet/item/instancesSet/item")`, `item.childText("privateDnsName")`. Names are matched by local
// name, so `ec2:instanceId` and `instanceId` are the same element. An element's `text` joins its own text runs and
// CDATA sections (the white space between child elements included), not its descendants'.

import { XmlAttribute, XmlEvent, XmlReader } from "./reader";

let lastParseError: string = "";

export class XmlElement {
  qname: string;
  attributes: XmlAttribute[];
  children: XmlElement[] = [];
  text: string = "";

  constructor(qname: string, attributes: XmlAttribute[]) {
    this.qname = qname;
    this.attributes = attributes;
  }

  /** The root element of a document, or null with the problem in XmlElement.lastError(). */
  static parse(text: string): XmlElement | null {
    return XmlElement.read(new XmlReader(text));
  }

  static parseBytes(bytes: Uint8Array): XmlElement | null {
    return XmlElement.read(XmlReader.fromBytes(bytes));
  }

  /** Why the last parse answered null. */
  static lastError(): string {
    return lastParseError;
  }

  private static read(r: XmlReader): XmlElement | null {
    lastParseError = "";
    const open: XmlElement[] = [];
    // An open element's text runs after its first, joined at its end tag: `text += run` for each of 200,000 runs
    // copies the text so far every time.
    const moreRuns: Array<string[] | null> = [];
    let root: XmlElement | null = null;
    while (true) {
      const ev = r.next();
      if (ev == XmlEvent.StartElement) {
        const el = new XmlElement(r.qname, r.attributes);
        if (open.length > 0) open[open.length - 1].children.push(el);
        else root = el;
        open.push(el);
        moreRuns.push(null);
      } else if (ev == XmlEvent.EndElement) {
        const el = open.pop();
        const runs = moreRuns.pop();
        if (runs !== null) el.text = runs.join("");
      } else if (ev == XmlEvent.Text) {
        const top = open.length - 1;
        const el = open[top];
        if (el.text.length == 0) {
          el.text = r.text;
          continue;
        }
        let runs = moreRuns[top];
        if (runs === null) {
          runs = [el.text];
          moreRuns[top] = runs;
        }
        runs.push(r.text);
      } else if (ev == XmlEvent.End) {
        return root;
      } else {
        lastParseError = r.error!;
        return null;
      }
    }
  }

  get name(): string {
    const colon = this.qname.indexOf(":");
    return colon < 0 ? this.qname : this.qname.substring(colon + 1);
  }

  /** The first child element of that local name, or null. */
  child(name: string): XmlElement | null {
    for (let i = 0; i < this.children.length; i++) {
      if (this.children[i].name == name) return this.children[i];
    }
    return null;
  }

  /** Every child element of that local name, in order. */
  childrenNamed(name: string): XmlElement[] {
    const out: XmlElement[] = [];
    for (let i = 0; i < this.children.length; i++) {
      if (this.children[i].name == name) out.push(this.children[i]);
    }
    return out;
  }

  /** The text of the first child of that name; "" when there is none (AWS leaves empty fields out). */
  childText(name: string): string {
    const c = this.child(name);
    return c === null ? "" : c.text;
  }

  /**
   * The elements a slash-separated path of local names reaches, every match of every step:
   * `path("reservationSet/item/instancesSet/item")` gives each instance of each reservation.
   */
  path(path: string): XmlElement[] {
    let level: XmlElement[] = [this];
    const steps = path.split("/");
    for (let s = 0; s < steps.length; s++) {
      const next: XmlElement[] = [];
      for (let i = 0; i < level.length; i++) {
        const found = level[i].childrenNamed(steps[s]);
        for (let k = 0; k < found.length; k++) next.push(found[k]);
      }
      level = next;
    }
    return level;
  }

  /** The first element a path reaches, or null. */
  first(path: string): XmlElement | null {
    const all = this.path(path);
    return all.length == 0 ? null : all[0];
  }

  /** The text of the first element a path reaches; "" when none. */
  pathText(path: string): string {
    const el = this.first(path);
    return el === null ? "" : el.text;
  }

  attr(name: string): string | null {
    for (let i = 0; i < this.attributes.length; i++) {
      const a = this.attributes[i];
      if (a.qname == name || a.name == name) return a.value;
    }
    return null;
  }
}
