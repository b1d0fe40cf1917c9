// The AWS e2e harness's corrections of moto (test/e2e/aws/support/moto-corrections.ts): AWS's default health check
// goes into each Classic ELB description that has none, and nowhere else; each listener's InstanceProtocol is the one
// it was made with; AWS's default scheme goes into an ELBv2 CreateLoadBalancer that names none, and no other request.
import { describe, expect, it } from 'vitest';
import {
  InstanceProtocols,
  withDefaultHealthChecks,
  withDefaultScheme,
} from '../../e2e/aws/support/moto-corrections.ts';

const member = (name: string, inner: string) =>
  `<member><LoadBalancerName>${name}</LoadBalancerName><ListenerDescriptions><member><Listener>` +
  `<InstancePort>${name === 'a' ? 30080 : 30081}</InstancePort></Listener></member></ListenerDescriptions>${inner}</member>`;
const answer = (members: string) =>
  `<DescribeLoadBalancersResponse><DescribeLoadBalancersResult><LoadBalancerDescriptions>${members}` +
  '</LoadBalancerDescriptions></DescribeLoadBalancersResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>' +
  '</DescribeLoadBalancersResponse>';

describe('moto correction: the Classic ELB health check AWS always has', () => {
  it('adds TCP on the first instance port with AWS defaults to each description without one', () => {
    const configured = '<HealthCheck><Target>TCP:1</Target></HealthCheck>';
    const { xml, count } = withDefaultHealthChecks(answer(member('a', '') + member('b', configured)));
    expect(count).toBe(1);
    expect(xml).toBe(
      answer(
        member(
          'a',
          '<HealthCheck><Target>TCP:30080</Target><Interval>30</Interval><Timeout>5</Timeout>' +
            '<UnhealthyThreshold>2</UnhealthyThreshold><HealthyThreshold>10</HealthyThreshold></HealthCheck>',
        ) + member('b', configured),
      ),
    );
  });

  it('leaves other answers alone', () => {
    const other = '<DescribeTagsResponse><member>x</member></DescribeTagsResponse>';
    expect(withDefaultHealthChecks(other)).toEqual({ xml: other, count: 0 });
    expect(withDefaultHealthChecks(answer(''))).toEqual({ xml: answer(''), count: 0 });
  });
});

describe('moto correction: the InstanceProtocol a listener was made with', () => {
  const listener = (port: number, protocol: string, instance: string) =>
    `<member><Listener><Protocol>${protocol}</Protocol><LoadBalancerPort>${port}</LoadBalancerPort>` +
    `<InstanceProtocol>${instance}</InstanceProtocol><InstancePort>3${port}</InstancePort></Listener>` +
    '<PolicyNames/></member>';
  const lb = (name: string, listeners: string) =>
    `<member><LoadBalancerName>${name}</LoadBalancerName><ListenerDescriptions>${listeners}</ListenerDescriptions></member>`;
  const form = (params: Record<string, string>) => new URLSearchParams({ Version: '2012-06-01', ...params });

  it('answers the recorded protocol per load balancer and port, forgetting deleted listeners', () => {
    const made = new InstanceProtocols();
    made.observe(
      form({
        Action: 'CreateLoadBalancer',
        LoadBalancerName: 'a',
        'Listeners.member.1.Protocol': 'ssl',
        'Listeners.member.1.LoadBalancerPort': '443',
        'Listeners.member.1.InstanceProtocol': 'tcp',
        'Listeners.member.2.Protocol': 'http',
        'Listeners.member.2.LoadBalancerPort': '80',
        'Listeners.member.2.InstanceProtocol': 'http',
      }),
    );
    const moto = answer(
      lb('a', listener(443, 'SSL', 'SSL') + listener(80, 'HTTP', 'HTTP')) + lb('b', listener(443, 'SSL', 'SSL')),
    );
    const { xml, count } = made.correct(moto);
    expect(count).toBe(1);
    expect(xml).toBe(
      answer(
        lb('a', listener(443, 'SSL', 'TCP') + listener(80, 'HTTP', 'HTTP')) + lb('b', listener(443, 'SSL', 'SSL')),
      ),
    );
    made.observe(
      form({ Action: 'DeleteLoadBalancerListeners', LoadBalancerName: 'a', 'LoadBalancerPorts.member.1': '443' }),
    );
    expect(made.correct(moto)).toEqual({ xml: moto, count: 0 });
  });
});

describe('moto correction: the scheme AWS gives an ELBv2 load balancer made without one', () => {
  const create = 'Action=CreateLoadBalancer&Name=a1&Type=network&Subnets.member.1=subnet-1&Version=2015-12-01';

  it('adds Scheme=internet-facing to a CreateLoadBalancer without a Scheme', () => {
    expect(withDefaultScheme(create)).toBe(`${create}&Scheme=internet-facing`);
  });

  it('leaves a named scheme, Classic ELB requests and other actions alone', () => {
    expect(withDefaultScheme(`${create}&Scheme=internal`)).toBeUndefined();
    expect(withDefaultScheme(create.replace('2015-12-01', '2012-06-01'))).toBeUndefined();
    expect(withDefaultScheme(create.replace('CreateLoadBalancer', 'DescribeLoadBalancers'))).toBeUndefined();
  });
});
