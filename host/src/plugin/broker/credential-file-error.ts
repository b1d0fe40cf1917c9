/** A credentials file, or a file one of its entries names, that cannot be used; the message never holds a secret. */
export class CredentialFileError extends Error {
  override name = 'CredentialFileError';
}
