import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { objectKey, type Wire } from '../../../host/src/kube/client/wire.ts';

describe('object keys', () => {
  it('are namespace/name, or name for cluster-scoped objects', () => {
    expect(objectKey({ metadata: { name: 'n1' } })).toBe('n1');
    expect(objectKey({ metadata: { name: 'web', namespace: 'shop' } })).toBe('shop/web');
  });
});

describe('Wire<T>', () => {
  it('types client-node Date fields as the strings the apiserver sends', () => {
    expectTypeOf<NonNullable<Wire<V1Node>['metadata']>['creationTimestamp']>().toEqualTypeOf<string | undefined>();
    type Condition = NonNullable<NonNullable<Wire<V1Node>['status']>['conditions']>[number];
    expectTypeOf<Condition['lastHeartbeatTime']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<Wire<V1Node>['metadata']>['name']>().toEqualTypeOf<string | undefined>();
  });
});
