import { ApiError, errorMessage } from '../errors.js';

/**
 * Why the live state of `organization` could not be read, saying what to check: the API answers 404 to the lists of
 * an organization that does not exist and, the same way, to one the token may not see.
 */
export function liveReadFailure(error: unknown, organization: string): string {
  const prefix = `reading the live state of organization ${organization} failed`;
  if (error instanceof ApiError && error.status === 404 && error.request.path.startsWith(`/organizations/${organization}/`)) {
    return `${prefix}: organization "${organization}" not found, or the token cannot see it (${error.message})`;
  }
  if (error instanceof ApiError && error.status === 401) {
    return `${prefix}: the API refused the token (${error.message}): check API_TOKEN (or api.token-file), and whether the token has expired`;
  }
  return `${prefix}: ${errorMessage(error)}`;
}
