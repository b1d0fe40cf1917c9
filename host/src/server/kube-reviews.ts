// ReviewClient backed by the Kubernetes API (TokenReview, SubjectAccessReview).
import { AuthenticationV1Api, AuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ReviewClient, UserInfo } from './auth.ts';

export function kubeReviewClient(kc: KubeConfig): ReviewClient {
  const authn = kc.makeApiClient(AuthenticationV1Api);
  const authz = kc.makeApiClient(AuthorizationV1Api);
  return {
    async tokenReview(token: string): Promise<UserInfo | undefined> {
      const review = await authn.createTokenReview({ body: { spec: { token } } });
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
      const review = await authz.createSubjectAccessReview({
        body: {
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
