// Routes for pod CIDRs in the cluster's route table (the one [Global] RouteTableID names, else those of the VPC tagged
// kubernetes.io/cluster/<cluster>), each to the node's instance, as cloud-provider-aws keeps them. The instance's
// source/destination check is turned off so that it may forward pod traffic.
import { internal, PluginError, Route, XmlElement } from "@wasm-ccm/plugin-sdk";
import { Aws } from "./api";
import { Config } from "./config";
import { describeByNodeName, describeInstances } from "./instances";
import { clusterTag } from "./names";

class Tables {
  tables: XmlElement[] = [];
  error: PluginError | null = null;
}

function routeTables(aws: Aws, cfg: Config): Tables {
  const out = new Tables();
  const q = aws.ec2Request("DescribeRouteTables");
  if (cfg.routeTableID != "") q.addList("RouteTableId", [cfg.routeTableID]);
  else q.addFilter("vpc-id", [cfg.vpc]).addFilter("tag-key", [clusterTag(cfg.clusterID)]);
  const answer = aws.callEc2(q);
  if (!answer.ok) out.error = answer.error;
  else out.tables = answer.root!.path("routeTableSet/item");
  return out;
}

export class RouteList {
  routes: Route[] = [];
  error: PluginError | null = null;
}

export function listRoutes(aws: Aws, cfg: Config): RouteList {
  const out = new RouteList();
  const found = routeTables(aws, cfg);
  if (found.error !== null) {
    out.error = found.error;
    return out;
  }
  const ids: string[] = [];
  const entries: XmlElement[] = [];
  for (let t = 0; t < found.tables.length; t++) {
    const routes = found.tables[t].path("routeSet/item");
    for (let i = 0; i < routes.length; i++) {
      const r = routes[i];
      const id = r.childText("instanceId");
      if (r.childText("destinationCidrBlock") == "") continue; // IPv6 and prefix-list routes
      if (id == "" && r.childText("state") != "blackhole") continue; // local, gateway and NAT routes
      entries.push(r);
      if (id != "" && !ids.includes(id)) ids.push(id);
    }
  }
  const instances = describeInstances(aws, ids, []);
  if (instances.error !== null) {
    out.error = instances.error;
    return out;
  }
  for (let i = 0; i < entries.length; i++) {
    const route = new Route();
    route.destinationCIDR = entries[i].childText("destinationCidrBlock");
    route.name = cfg.clusterID + "-" + route.destinationCIDR;
    route.blackhole = entries[i].childText("state") == "blackhole";
    const id = entries[i].childText("instanceId");
    for (let k = 0; k < instances.instances.length; k++) {
      if (instances.instances[k].id == id) route.targetNode = instances.instances[k].privateDnsName;
    }
    if (route.targetNode == "") route.blackhole = true; // the instance is gone: nothing carries the traffic
    out.routes.push(route);
  }
  return out;
}

export function createRoute(aws: Aws, cfg: Config, route: Route): PluginError | null {
  const found = describeByNodeName(aws, route.targetNode);
  if (found.error !== null) return found.error;
  if (found.instances.length == 0 || found.instances[0].state == "terminated") return internal("no EC2 instance for node " + route.targetNode);
  const instanceId = found.instances[0].id;
  const tables = routeTables(aws, cfg);
  if (tables.error !== null) return tables.error;
  if (tables.tables.length == 0) return internal("no route table tagged " + clusterTag(cfg.clusterID) + " in " + cfg.vpc);
  const check = aws.ec2Request("ModifyInstanceAttribute").add("InstanceId", instanceId).add("SourceDestCheck.Value", "false");
  const checkAnswer = aws.callEc2(check);
  if (!checkAnswer.ok) return checkAnswer.error;
  for (let t = 0; t < tables.tables.length; t++) {
    const error = putRoute(aws, tables.tables[t], route.destinationCIDR, instanceId);
    if (error !== null) return error;
  }
  return null;
}

function putRoute(aws: Aws, table: XmlElement, cidr: string, instanceId: string): PluginError | null {
  const tableId = table.childText("routeTableId");
  const routes = table.path("routeSet/item");
  for (let i = 0; i < routes.length; i++) {
    if (routes[i].childText("destinationCidrBlock") != cidr) continue;
    if (routes[i].childText("instanceId") == instanceId && routes[i].childText("state") != "blackhole") return null;
    // Another target, or a blackhole left by a deleted instance: replace it.
    const error = deleteFrom(aws, tableId, cidr);
    if (error !== null) return error;
  }
  const q = aws.ec2Request("CreateRoute").add("RouteTableId", tableId).add("DestinationCidrBlock", cidr);
  const answer = aws.callEc2(q.add("InstanceId", instanceId));
  return answer.ok || answer.code == "RouteAlreadyExists" ? null : answer.error;
}

function deleteFrom(aws: Aws, tableId: string, cidr: string): PluginError | null {
  const q = aws.ec2Request("DeleteRoute").add("RouteTableId", tableId).add("DestinationCidrBlock", cidr);
  const answer = aws.callEc2(q);
  return answer.ok || answer.code == "InvalidRoute.NotFound" ? null : answer.error;
}

export function deleteRoute(aws: Aws, cfg: Config, route: Route): PluginError | null {
  const tables = routeTables(aws, cfg);
  if (tables.error !== null) return tables.error;
  for (let t = 0; t < tables.tables.length; t++) {
    const error = deleteFrom(aws, tables.tables[t].childText("routeTableId"), route.destinationCIDR);
    if (error !== null) return error;
  }
  return null;
}
