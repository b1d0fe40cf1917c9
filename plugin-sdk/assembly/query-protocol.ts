// The AWS Query protocol's request side (EC2, ELBv2, IAM, STS...): an `Action`, a `Version` and parameters, form
// encoded in a POST body. Lists are flattened into numbered keys: EC2 writes `InstanceId.1=...`, `Filter.1.Name=...`,
// `Filter.1.Value.1=...`; ELBv2 and the other newer services write `TargetGroupArns.member.1=...` and
// `Tags.member.1.Key=...`. Keys and values are percent-encoded with the RFC 3986 unreserved set as SigV4's canonical
// form wants it (encodeComponent), so a signer that re-encodes the body computes the same bytes.

import { encodeComponent } from "./url";

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded; charset=utf-8";

export class QueryRequest {
  private parts: string[] = [];
  private filters: i32 = 0;
  /** The Action, for messages. */
  readonly action: string;

  constructor(action: string, version: string) {
    this.action = action;
    this.add("Action", action).add("Version", version);
  }

  /** One parameter, in order; an empty value is sent as `Key=` (AWS reads it as the empty string). */
  add(key: string, value: string): QueryRequest {
    this.parts.push(encodeComponent(key) + "=" + encodeComponent(value));
    return this;
  }

  /** EC2's flat list: `<prefix>.1=v1&<prefix>.2=v2`. */
  addList(prefix: string, values: string[]): QueryRequest {
    for (let i = 0; i < values.length; i++) this.add(prefix + "." + (i + 1).toString(), values[i]);
    return this;
  }

  /** A member list: `<prefix>.member.1=v1&<prefix>.member.2=v2`. */
  addMembers(prefix: string, values: string[]): QueryRequest {
    for (let i = 0; i < values.length; i++) this.add(QueryRequest.member(prefix, i + 1), values[i]);
    return this;
  }

  /** The next EC2 filter: `Filter.<n>.Name=<name>&Filter.<n>.Value.<m>=<value m>`, n counting from 1 per request. */
  addFilter(name: string, values: string[]): QueryRequest {
    this.filters++;
    const key = "Filter." + this.filters.toString();
    this.add(key + ".Name", name);
    return this.addList(key + ".Value", values);
  }

  /** The key of item `index` (from 1) of a member list, for structures: member("Tags", 2) + ".Key". */
  static member(prefix: string, index: i32): string {
    return prefix + ".member." + index.toString();
  }

  /** The form-encoded body. */
  toString(): string {
    return this.parts.join("&");
  }
}
