// The lease fence's question, "may this request change something?", case by case: methods, bodies on safe methods,
// Query API actions in the query (any method) and in a form body (POST, where the endpoint declares the AWS Query API).
import { describe, expect, it } from 'vitest';
import {
  actionsOf,
  type EffectRequest,
  METHOD_OVERRIDE_HEADERS,
  mutationReason,
  type PostReads,
} from '../../../host/src/plugin/broker/request-effect.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };

function request(method: string, url: string, body?: string, headers: Record<string, string> = {}): EffectRequest {
  return { method, url: new URL(url), headers, body: body === undefined ? undefined : Buffer.from(body) };
}

const reads: Array<[string, EffectRequest, PostReads?]> = [
  ['a GET', request('GET', 'https://api.example/v1/instances?limit=10')],
  ['a HEAD', request('HEAD', 'https://api.example/v1/instances')],
  ['an OPTIONS', request('OPTIONS', 'https://api.example/')],
  ['a GET with an empty body', request('GET', 'https://api.example/', '')],
  ['a GET of a read action', request('GET', 'https://ec2.example/?Action=DescribeInstances&Version=2016-11-15')],
  ['a GET of Get* and List* actions', request('GET', 'https://x.example/?Action=GetConsoleOutput&Action=ListTags')],
  ['a GET whose other parameter mentions an action', request('GET', 'https://api.example/?q=Action%3DRunInstances')],
  ['a GET with a parameter named like one', request('GET', 'https://api.example/?Actions=RunInstances')],
  [
    'an AWS Query POST of a read action',
    request('POST', 'https://ec2.example/', 'Action=DescribeInstances&Version=2016-11-15', FORM),
    'awsQuery',
  ],
  [
    'an AWS Query POST of a read action, its name escaped',
    request('POST', 'https://ec2.example/', '%41ction=DescribeTags', FORM),
    'awsQuery',
  ],
  [
    'an AWS Query POST whose content type is plain form',
    request('POST', 'https://ec2.example/', 'Action=ListTagsForResource', {
      'content-type': 'Application/X-WWW-Form-Urlencoded',
    }),
    'awsQuery',
  ],
];

const mutations: Array<[string, EffectRequest, PostReads | undefined, RegExp]> = [
  ['a POST', request('POST', 'https://api.example/v1/instances', '{}'), undefined, /^$/],
  ['a PUT', request('PUT', 'https://api.example/v1/instances/1', '{}'), undefined, /^$/],
  ['a PATCH', request('PATCH', 'https://api.example/v1/instances/1', '{}'), undefined, /^$/],
  ['a DELETE', request('DELETE', 'https://api.example/v1/instances/1'), undefined, /^$/],
  ['an unknown method', request('PURGE', 'https://api.example/'), undefined, /^$/],
  ['TRACE', request('TRACE', 'https://api.example/'), undefined, /^$/],
  [
    'a GET with a body',
    request('GET', 'https://api.example/', 'x'),
    undefined,
    /it carries a body, which a server may act on/,
  ],
  ['an OPTIONS with a body', request('OPTIONS', 'https://api.example/', '{}'), undefined, /carries a body/],
  ['a HEAD with a body', request('HEAD', 'https://api.example/', '{}'), undefined, /carries a body/],
  [
    'a signed GET of TerminateInstances',
    request('GET', 'https://ec2.example/?Action=TerminateInstances&InstanceId.1=i-1'),
    'awsQuery',
    /Action=TerminateInstances is not a read/,
  ],
  [
    'a GET naming the action in another case',
    request('GET', 'https://ec2.example/?ACTION=RunInstances'),
    undefined,
    /RunInstances is not a read/,
  ],
  [
    'a GET naming the action behind escapes',
    request('GET', 'https://ec2.example/?%41ction=Run%49nstances'),
    undefined,
    /RunInstances is not a read/,
  ],
  [
    'a GET with a read action and a mutating one',
    request('GET', 'https://ec2.example/?Action=DescribeInstances&Action=DeleteVpc'),
    undefined,
    /DeleteVpc/,
  ],
  [
    'a GET whose action is separated by ;',
    request('GET', 'https://ec2.example/?Version=1;Action=DeleteVpc'),
    undefined,
    /DeleteVpc/,
  ],
  [
    'a GET whose action looks like a read but is not one word',
    request('GET', 'https://ec2.example/?Action=DescribeInstances%20TerminateInstances'),
    undefined,
    /not a read/,
  ],
  ['a lower-case read-looking action', request('GET', 'https://x.example/?Action=describe'), undefined, /not a read/],
  ['an empty action', request('GET', 'https://x.example/?Action='), undefined, /Action= is not a read/],
  ['a query it cannot decode', request('GET', 'https://x.example/?%E1%88=1'), undefined, /cannot be read/],
  [
    'a read POST to an endpoint that declares nothing',
    request('POST', 'https://ec2.example/', 'Action=DescribeInstances', FORM),
    undefined,
    /^$/,
  ],
  [
    'an AWS Query POST of a mutating action',
    request('POST', 'https://ec2.example/', 'Action=TerminateInstances&InstanceId.1=i-1', FORM),
    'awsQuery',
    /Action=TerminateInstances is not a read/,
  ],
  [
    'an AWS Query POST whose form names a read and a mutation',
    request('POST', 'https://ec2.example/', 'Action=DescribeInstances&action=CreateVpc', FORM),
    'awsQuery',
    /CreateVpc/,
  ],
  [
    'an AWS Query POST whose body reads but whose query mutates',
    request('POST', 'https://ec2.example/?Action=RunInstances', 'Action=DescribeInstances', FORM),
    'awsQuery',
    /query's Action=RunInstances/,
  ],
  [
    'an AWS Query POST without a content type',
    request('POST', 'https://ec2.example/', 'Action=DescribeInstances'),
    'awsQuery',
    /^$/,
  ],
  [
    'an AWS Query POST of JSON',
    request('POST', 'https://ec2.example/', 'Action=DescribeInstances', { 'content-type': 'application/json' }),
    'awsQuery',
    /^$/,
  ],
  [
    'an AWS Query POST without a body',
    request('POST', 'https://ec2.example/?Action=DescribeInstances'),
    'awsQuery',
    /^$/,
  ],
  [
    'an AWS Query POST whose form names no action',
    request('POST', 'https://ec2.example/', 'Version=2016-11-15', FORM),
    'awsQuery',
    /names no Action/,
  ],
  [
    'an AWS Query POST whose form cannot be decoded',
    request('POST', 'https://ec2.example/', 'Action=DescribeInstances&%ZZ=1', FORM),
    'awsQuery',
    /form body cannot be read/,
  ],
  [
    'an AWS Query PUT of a read action',
    request('PUT', 'https://ec2.example/', 'Action=DescribeInstances', FORM),
    'awsQuery',
    /^$/,
  ],
];

describe('what a request does', () => {
  it.each(reads)('%s only reads', (_what, req, postReads) => {
    expect(mutationReason(req, postReads)).toBeUndefined();
  });

  it.each(mutations)('%s may change something', (_what, req, postReads, reason) => {
    expect(mutationReason(req, postReads)).toMatch(reason);
  });

  it('reads Action parameters as a server would', () => {
    expect(actionsOf('Action=A&b=1&action=B;ACTION=C&x')).toEqual(['A', 'B', 'C']);
    expect(actionsOf('Action=Describe+Instances')).toEqual(['Describe Instances']);
    expect(actionsOf('Action')).toEqual(['']);
    expect(actionsOf('%zz=1')).toBeUndefined();
    expect(actionsOf('Action=%zz')).toBeUndefined();
    // A malformed escape in another parameter's value does not matter.
    expect(actionsOf('x=%zz&Action=ListTags')).toEqual(['ListTags']);
  });

  it('knows the method-override headers', () => {
    expect([...METHOD_OVERRIDE_HEADERS].sort()).toEqual([
      'x-http-method',
      'x-http-method-override',
      'x-method-override',
    ]);
  });
});
