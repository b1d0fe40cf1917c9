// What bench:cloud-calls reads from the clouds' own records: the requests of a scenario as the difference of two
// readings of devcloud's counters, moto's recording by AWS action, and the table of both CCMs' counts.
import { describe, expect, it } from 'vitest';
import {
  awsActions,
  type RecordedCall,
  cloudCallsTable,
  cloudRequestTotal,
  counterDelta,
  requestRatio,
} from '../../../lab/measure/index.ts';

describe('counterDelta', () => {
  it('counts what each cloud operation gained, leaving out admin requests, unmatched ones and those that did not move', () => {
    const before = { getInstance: { total: 10 }, listZones: { total: 2 }, adminStopInstance: { total: 1 } };
    const after = {
      getInstance: { total: 1_010 },
      listZones: { total: 2 },
      getInstanceByName: { total: 3 },
      adminStopInstance: { total: 5 },
      unmatched: { total: 7 },
    };
    expect(counterDelta(before, after)).toEqual({ getInstance: 1_000, getInstanceByName: 3 });
    expect(cloudRequestTotal(after)).toBe(1_015);
  });

  it('refuses a counter that went down (devcloud reset between the readings)', () => {
    expect(() => counterDelta({ getInstance: { total: 5 } }, { getInstance: { total: 2 } })).toThrow(
      'devcloud counter getInstance went down (5 -> 2): reset?',
    );
  });
});

describe('awsActions', () => {
  const signed = (service: string) => ({
    Authorization: `AWS4-HMAC-SHA256 Credential=AKID/20261127/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=00`,
  });

  it('names each request by its signed service and its action, from the form body or the query', () => {
    const calls: RecordedCall[] = [
      { method: 'POST', url: '/', headers: signed('ec2'), body: 'Action=DescribeInstances&Version=2016-11-15' },
      { method: 'POST', url: '/', headers: signed('ec2'), body: 'Version=2016-11-15&Action=DescribeInstances' },
      { method: 'GET', url: '/?Action=DescribeTargetGroups', headers: signed('elasticloadbalancing'), body: '' },
      { method: 'POST', url: '/', headers: { authorization: signed('ec2').Authorization }, body: 'Action=CreateTags' },
      { method: 'GET', url: '/moto-api/data.json', headers: {}, body: '' },
    ];
    expect(awsActions(calls)).toEqual({
      'ec2:DescribeInstances': 2,
      'elasticloadbalancing:DescribeTargetGroups': 1,
      'ec2:CreateTags': 1,
      'GET /moto-api/data.json': 1,
    });
  });
});

describe('the cloud-calls table', () => {
  it('gives wasm-ccm over upstream, and no ratio when upstream made no request', () => {
    expect(requestRatio(1_000, 50)).toBe(0.05);
    expect(requestRatio(0, 3)).toBeNull();
    expect(() => requestRatio(Number.NaN, 1)).toThrow('request counts must be non-negative numbers');
    const table = cloudCallsTable([
      { scenario: 'burst initialization (1000 nodes)', cloud: 'devcloud', upstream: 1_000, wasmCcm: 1_000 },
      { scenario: 'NotReady storm (100 nodes, 60 s)', cloud: 'moto', upstream: 2_400, wasmCcm: 120 },
      { scenario: 'idle', cloud: 'moto', upstream: 0, wasmCcm: 0 },
    ]).split('\n');
    expect(table[0]).toMatch(/^scenario\s+cloud\s+upstream requests\s+wasm-ccm requests\s+ratio$/);
    expect(table[2]).toMatch(/^burst initialization \(1000 nodes\)\s+devcloud\s+1000\s+1000\s+1\.000$/);
    expect(table[3]).toMatch(/moto\s+2400\s+120\s+0\.050$/);
    expect(table[4]).toMatch(/moto\s+0\s+0\s+-$/);
  });
});
