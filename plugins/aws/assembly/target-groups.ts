// Target groups of an NLB, one per Service port: the group holds the nodes (instances or IP addresses, targets.ts) on
// the port's NodePort and carries the health check and the target group attributes; listeners.ts points the port's
// listener at it.
import { PluginError, Service, ServicePort } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { syncTargetGroupAttributes } from "./attributes";
import { Config } from "./config";
import {
  addTags,
  changeTargets,
  create,
  describeTargets,
  Listener,
  Nlb,
  readTags,
  readTargetGroup,
  simpleCall,
  Target,
  TargetGroup,
} from "./elbv2";
import { HealthCheck, LbOptions, readOptions } from "./lb-options";
import { syncListener } from "./listeners";
import { clusterTag, SERVICE_NAME_TAG, targetGroupName } from "./names";
import { NlbOptions, readNlbOptions } from "./nlb-options";
import { TARGET_INSTANCE, TARGET_IP, Targets } from "./targets";

/** Upstream's name: its hash covers what a group cannot change (ports, protocol, target type, health protocol, interval). */
function nameFor(cfg: Config, service: Service, port: ServicePort, protocol: string, targetType: string, health: HealthCheck): string {
  const h = health;
  return targetGroupName(cfg.clusterID, service, port.port, port.nodePort, protocol, targetType, h.protocol, h.interval);
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
    public nlb: NlbOptions,
    public lb: Nlb,
    public listeners: Listener[],
    public attached: TargetGroup[],
    public targets: Targets,
  ) {}
}

/** The target group and listener of one Service port, their ARNs added to `sync.keep`. */
export function syncPort(sync: PortSync, port: ServicePort): PluginError | null {
  const aws = sync.aws;
  const name = nameFor(sync.cfg, sync.service, port, sync.nlb.trafficProtocol(port), sync.targets.type, sync.opts.health);
  let tg: TargetGroup | null = null;
  for (let i = 0; i < sync.attached.length; i++) if (sync.attached[i].name == name) tg = sync.attached[i];
  if (tg === null) {
    const found = findTargetGroup(aws, name);
    if (found.error !== null) return found.error;
    tg = found.group;
  }
  let arn = "";
  if (tg === null) {
    const made = createTargetGroup(sync, port, name);
    if (made.error !== null) return made.error;
    arn = made.arn;
  } else {
    arn = tg.arn;
    const healthError = syncHealth(aws, tg, sync.opts.health);
    if (healthError !== null) return healthError;
  }
  sync.keep.push(arn);
  const attrError = syncTargetGroupAttributes(aws, arn, sync.nlb.tgAttributes);
  if (attrError !== null) return attrError;
  const targetsError = syncTargets(aws, arn, sync.targets.items, port.nodePort);
  if (targetsError !== null) return targetsError;
  return syncListener(aws, sync.lb.arn, sync.listeners, port, sync.nlb, arn, sync.keep);
}

/**
 * What upstream changes of an existing group's health check: its port, thresholds and path (and the timeout when it
 * is annotated); protocol and interval are in the name, so a change of those makes a new group.
 */
function syncHealth(aws: Aws, tg: TargetGroup, h: HealthCheck): PluginError | null {
  const q = aws.elbRequest("ModifyTargetGroup").add("TargetGroupArn", tg.arn);
  let dirty = false;
  if (tg.healthPort != h.port) {
    q.add("HealthCheckPort", h.port);
    dirty = true;
  }
  if (tg.healthy != h.healthy || tg.unhealthy != h.unhealthy) {
    q.add("HealthyThresholdCount", h.healthy.toString()).add("UnhealthyThresholdCount", h.unhealthy.toString());
    dirty = true;
  }
  if (h.protocol != "TCP" && tg.healthPath != h.path) {
    q.add("HealthCheckPath", h.path);
    dirty = true;
  }
  if (h.timeoutSet && tg.healthTimeout != h.timeout) {
    q.add("HealthCheckTimeoutSeconds", h.timeout.toString());
    dirty = true;
  }
  return dirty ? simpleCall(aws, q) : null;
}

class FoundArn {
  arn: string = "";
  error: PluginError | null = null;
}

class FoundGroup {
  group: TargetGroup | null = null;
  error: PluginError | null = null;
}

function findTargetGroup(aws: Aws, name: string): FoundGroup {
  const out = new FoundGroup();
  const answer = aws.callElb(aws.elbRequest("DescribeTargetGroups").addMembers("Names", [name]));
  if (answer.code == "TargetGroupNotFound") return out;
  out.error = answer.error;
  if (!answer.ok) return out;
  const found = answer.root!.path("DescribeTargetGroupsResult/TargetGroups/member");
  if (found.length > 0) out.group = readTargetGroup(found[0]);
  return out;
}

function createTargetGroup(sync: PortSync, port: ServicePort, name: string): FoundArn {
  const aws = sync.aws;
  const cfg = sync.cfg;
  const opts = sync.opts;
  const service = sync.service;
  const h = opts.health;
  const q = aws.elbRequest("CreateTargetGroup").add("Name", name).add("Protocol", sync.nlb.trafficProtocol(port));
  q.add("Port", port.nodePort.toString()).add("VpcId", cfg.vpc).add("TargetType", sync.targets.type);
  q.add("HealthCheckProtocol", h.protocol).add("HealthCheckPort", h.port);
  if (h.protocol != "TCP") q.add("HealthCheckPath", h.path);
  q.add("HealthCheckIntervalSeconds", h.interval.toString());
  // As upstream: ELBv2's own timeout unless the Service names one.
  if (h.timeoutSet) q.add("HealthCheckTimeoutSeconds", h.timeout.toString());
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
  cfg.probe.apply(service, health);
  const nlb = readNlbOptions(service);
  const types = [TARGET_INSTANCE, TARGET_IP];
  for (let i = 0; i < service.ports.length; i++) {
    const port = service.ports[i];
    const protocol = nlb.error === null ? nlb.trafficProtocol(port) : port.protocol;
    for (let k = 0; k < types.length; k++) {
      const error = deleteOwnedGroup(aws, cfg, nameFor(cfg, service, port, protocol, types[k], health));
      if (error !== null) return error;
    }
  }
  return null;
}

function deleteOwnedGroup(aws: Aws, cfg: Config, name: string): PluginError | null {
  const found = findTargetGroup(aws, name);
  if (found.error !== null) return found.error;
  const group = found.group;
  if (group === null) return null;
  const tags = new Map<string, string>();
  const tagError = readTags(aws, group.arn, tags);
  if (tagError !== null) return tagError;
  const tag = clusterTag(cfg.clusterID);
  if (!tags.has(tag) || tags.get(tag) != "owned") return null;
  return simpleCall(aws, aws.elbRequest("DeleteTargetGroup").add("TargetGroupArn", group.arn), "TargetGroupNotFound");
}
