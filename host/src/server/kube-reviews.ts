// ReviewClient backed by the Kubernetes API (TokenReview, SubjectAccessReview).
import type { V1SubjectAccessReview, V1TokenReview } from '@kubernetes/client-node';
import type { KubeClient } from '../kube/client/client.ts';
import { HttpMethod } from '../kube/client/http-method.ts';
import type { ReviewClient, UserInfo } from './auth.ts';

/** TokenReviews through `authn`, SubjectAccessReviews through `authz` (one client unless the flags name two kubeconfigs). */
export function kubeReviewClient(authn: KubeClient, authz: KubeClient = authn): ReviewClient {
  return {
    async tokenReview(token: string): Promise<UserInfo | undefined> {
      const review = await authn.request<V1TokenReview>({
        method: HttpMethod.POST,
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const status = review.status;
      if (!status?.authenticated || !status.user?.username) return undefined;
      return {
        username: status.user.username,
        uid: status.user.uid,
        groups: status.user.groups ?? [],
        extra: status.user.extra,
      };
    },
    async subjectAccessReview(user: UserInfo, path: string, verb: string) {
      const review = await authz.request<V1SubjectAccessReview>({
        method: HttpMethod.POST,
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path, verb },
          },
        },
      });
      return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    },
  };
}
