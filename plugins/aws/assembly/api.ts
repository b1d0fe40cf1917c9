// EC2 and ELBv2 over the Query protocol: a form-encoded POST, an XML answer. The plugin signs nothing: the host's
// broker adds the SigV4 headers for the hosts of an AWS credentials entry. An AWS error answer (EC2's
// <Response><Errors><Error>, ELBv2's <ErrorResponse><Error>) keeps its code, so callers can read "not found" codes as
// answers rather than failures.
import { HttpClient, internal, PluginError, QueryRequest, retryAfter, XmlElement } from "@wasm-ccm/plugin-sdk";

export const EC2_VERSION = "2016-11-15";
export const ELBV2_VERSION = "2015-12-01";

// Codes AWS uses for "slow down": the controllers retry them with backoff.
const THROTTLING = ["Throttling", "ThrottlingException", "RequestLimitExceeded", "TooManyRequestsException"];

export class AwsAnswer {
  /** The answer's root element when the call succeeded. */
  root: XmlElement | null = null;
  /** The AWS error code ("" for transport failures and successes). */
  code: string = "";
  error: PluginError | null = null;

  get ok(): bool {
    return this.error === null;
  }
}

export class Aws {
  ec2: HttpClient;
  elb: HttpClient;

  constructor(ec2Url: string, elbUrl: string) {
    this.ec2 = new HttpClient(ec2Url);
    this.elb = new HttpClient(elbUrl);
  }

  ec2Request(action: string): QueryRequest {
    return new QueryRequest(action, EC2_VERSION);
  }

  elbRequest(action: string): QueryRequest {
    return new QueryRequest(action, ELBV2_VERSION);
  }

  callEc2(q: QueryRequest): AwsAnswer {
    return call(this.ec2, "ec2", q);
  }

  callElb(q: QueryRequest): AwsAnswer {
    return call(this.elb, "elasticloadbalancing", q);
  }
}

function call(client: HttpClient, service: string, q: QueryRequest): AwsAnswer {
  const out = new AwsAnswer();
  const res = client.postQuery("/", q);
  const action = q.action;
  if (res.error !== null) {
    out.error = res.toPluginError();
    return out;
  }
  const root = res.xml();
  if (res.ok) {
    if (root === null) {
      out.error = internal(service + " " + action + ": the answer is not XML: " + XmlElement.lastError());
    } else if (root.name != action + "Response") {
      // Another service's answer (a misrouted endpoint, a proxy's page): read as empty, it would say "no such
      // instance", and the lifecycle controller deletes Nodes on that.
      out.error = internal(service + " " + action + ": the answer is <" + root.qname + ">, not <" + action + "Response>");
    } else {
      out.root = root;
    }
    return out;
  }
  if (root === null) {
    out.error = res.toPluginError();
    return out;
  }
  const err = root.name == "Response" ? root.first("Errors/Error") : root.child("Error");
  out.code = err === null ? "" : err.childText("Code");
  const message = err === null ? "" : err.childText("Message");
  const text = service + " " + action + ": " + res.status.toString() + " " + out.code + ": " + message;
  out.error = THROTTLING.includes(out.code) || res.status == 503 ? retryAfter(2, text) : internal(text);
  return out;
}
