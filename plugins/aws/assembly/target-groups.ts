// Target groups and listeners of an NLB, one of each per Service port: the target group holds the nodes (instances or
// IP addresses, targets.ts) on the port's NodePort and carries the health check; the listener forwards the port to it.
import { PluginError, QueryRequest, Service, ServicePort } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config } from "./config";
import {
  addTags,
  changeTargets,
  create,
  describeTargets,
  Listener,
  Nlb,
  readTags,
  simpleCall,
  Target,
  TargetGroup,
} from "./elbv2";
import { HealthCheck, LbOptions, readOptions } from "./lb-options";
import { clusterTag, SERVICE_NAME_TAG, targetGroupName } from "./names";
import { TARGET_INSTANCE, TARGET_IP, Targets } from "./targets";

function nameFor(cfg: Config, service: Service, port: ServicePort, targetType: string, health: HealthCheck): string {
  const h = health;
  return targetGroupName(cfg.clusterID, service, port.port, port.nodePort, port.protocol, targetType, h.protocol, h.interval);
}

/** What the ports of one NLB are synced against: its current listeners and groups, and the wanted targets. */
export class PortSync {
  /** ARNs of the listeners and target groups that stay; the others are removed after every port is synced. */
  keep: string[] = [];

  constructor(
    public aws: Aws,
    public cfg: Config,
    public service: Service,
    public opts: LbOptions,
    public lb: Nlb,
    public listeners: Listener[],
    public attached: TargetGroup[],
    public targets: Targets,
  ) {}
}

/** The target group and listener of one Service port, their ARNs added to `sync.keep`. */
export function syncPort(sync: PortSync, port: ServicePort): PluginError | null {
  const aws = sync.aws;
  const cfg = sync.cfg;
  const service = sync.service;
  const opts = sync.opts;
  const listeners = sync.listeners;
  const attached = sync.attached;
  const keep = sync.keep;
  const name = nameFor(cfg, service, port, sync.targets.type, opts.health);
  let arn = "";
  for (let i = 0; i < attached.length; i++) if (attached[i].name == name) arn = attached[i].arn;
  if (arn == "") {
    const found = findTargetGroup(aws, name);
    if (found.error !== null) return found.error;
    arn = found.arn;
  }
  if (arn == "") {
    const made = createTargetGroup(sync, port, name);
    if (made.error !== null) return made.error;
    arn = made.arn;
  }
  keep.push(arn);
  const targetsError = syncTargets(aws, arn, sync.targets.items, port.nodePort);
  if (targetsError !== null) return targetsError;
  for (let i = 0; i < listeners.length; i++) {
    if (listeners[i].port != port.port) continue;
    keep.push(listeners[i].arn);
    if (listeners[i].targetGroupArn == arn) return null;
    const q = forward(aws.elbRequest("ModifyListener").add("ListenerArn", listeners[i].arn), arn);
    return simpleCall(aws, q);
  }
  const q = aws.elbRequest("CreateListener").add("LoadBalancerArn", sync.lb.arn);
  q.add("Protocol", port.protocol).add("Port", port.port.toString());
  const made = create(aws, forward(q, arn), "CreateListenerResult/Listeners/member/ListenerArn");
  if (made.error !== null) return made.error;
  keep.push(made.arn);
  return null;
}

function forward(q: QueryRequest, tgArn: string): QueryRequest {
  const action = QueryRequest.member("DefaultActions", 1);
  return q.add(action + ".Type", "forward").add(action + ".TargetGroupArn", tgArn);
}

class FoundArn {
  arn: string = "";
  error: PluginError | null = null;
}

function findTargetGroup(aws: Aws, name: string): FoundArn {
  const out = new FoundArn();
  const answer = aws.callElb(aws.elbRequest("DescribeTargetGroups").addMembers("Names", [name]));
  if (answer.code == "TargetGroupNotFound") return out;
  out.error = answer.error;
  if (answer.ok) out.arn = answer.root!.pathText("DescribeTargetGroupsResult/TargetGroups/member/TargetGroupArn");
  return out;
}

function createTargetGroup(sync: PortSync, port: ServicePort, name: string): FoundArn {
  const aws = sync.aws;
  const cfg = sync.cfg;
  const opts = sync.opts;
  const service = sync.service;
  const h = opts.health;
  const q = aws.elbRequest("CreateTargetGroup").add("Name", name).add("Protocol", port.protocol);
  q.add("Port", port.nodePort.toString()).add("VpcId", cfg.vpc).add("TargetType", sync.targets.type);
  q.add("HealthCheckProtocol", h.protocol).add("HealthCheckPort", h.port);
  if (h.protocol != "TCP") q.add("HealthCheckPath", h.path);
  q.add("HealthCheckIntervalSeconds", h.interval.toString()).add("HealthCheckTimeoutSeconds", h.timeout.toString());
  q.add("HealthyThresholdCount", h.healthy.toString()).add("UnhealthyThresholdCount", h.unhealthy.toString());
  const tags = new Map<string, string>();
  const extra = opts.additionalTags.keys();
  for (let i = 0; i < extra.length; i++) tags.set(extra[i], opts.additionalTags.get(extra[i]));
  tags.set(clusterTag(cfg.clusterID), "owned");
  tags.set(SERVICE_NAME_TAG, service.namespace + "/" + service.name);
  const made = create(aws, addTags(q, tags), "CreateTargetGroupResult/TargetGroups/member/TargetGroupArn");
  const out = new FoundArn();
  out.arn = made.arn;
  out.error = made.error;
  return out;
}

/** Registers the targets missing from the group and deregisters those no longer wanted. */
function syncTargets(aws: Aws, tgArn: string, want: Target[], nodePort: i32): PluginError | null {
  const current = describeTargets(aws, tgArn);
  if (current.error !== null) return current.error;
  const have: string[] = [];
  const extra: Target[] = [];
  for (let i = 0; i < current.items.length; i++) {
    const t = current.items[i];
    if (wanted(want, t.id) && t.port == nodePort) have.push(t.id);
    else extra.push(t);
  }
  const missing: Target[] = [];
  for (let i = 0; i < want.length; i++) {
    if (have.includes(want[i].id)) continue;
    const t = new Target();
    t.id = want[i].id;
    t.port = nodePort;
    t.zone = want[i].zone;
    missing.push(t);
  }
  const error = changeTargets(aws, "RegisterTargets", tgArn, missing);
  if (error !== null) return error;
  return changeTargets(aws, "DeregisterTargets", tgArn, extra);
}

function wanted(want: Target[], id: string): bool {
  for (let i = 0; i < want.length; i++) if (want[i].id == id) return true;
  return false;
}

/** Deletes the groups of `groups` whose ARN is not in `keep`. */
export function removeTargetGroups(aws: Aws, groups: TargetGroup[], keep: string[]): PluginError | null {
  for (let i = 0; i < groups.length; i++) {
    if (keep.includes(groups[i].arn)) continue;
    const q = aws.elbRequest("DeleteTargetGroup").add("TargetGroupArn", groups[i].arn);
    const error = simpleCall(aws, q, "TargetGroupNotFound");
    if (error !== null) return error;
  }
  return null;
}

/** Deletes the cluster's target groups named for the Service's ports that no load balancer holds any more. */
export function targetGroupsOfService(aws: Aws, cfg: Config, service: Service): PluginError | null {
  const opts = readOptions(service);
  const health = opts.error === null ? opts.health : new HealthCheck();
  const types = [TARGET_INSTANCE, TARGET_IP];
  for (let i = 0; i < service.ports.length; i++) {
    for (let k = 0; k < types.length; k++) {
      const error = deleteOwnedGroup(aws, cfg, nameFor(cfg, service, service.ports[i], types[k], health));
      if (error !== null) return error;
    }
  }
  return null;
}

function deleteOwnedGroup(aws: Aws, cfg: Config, name: string): PluginError | null {
  const found = findTargetGroup(aws, name);
  if (found.error !== null) return found.error;
  if (found.arn == "") return null;
  const tags = new Map<string, string>();
  const tagError = readTags(aws, found.arn, tags);
  if (tagError !== null) return tagError;
  const tag = clusterTag(cfg.clusterID);
  if (!tags.has(tag) || tags.get(tag) != "owned") return null;
  return simpleCall(aws, aws.elbRequest("DeleteTargetGroup").add("TargetGroupArn", found.arn), "TargetGroupNotFound");
}
