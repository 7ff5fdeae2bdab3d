/** Who is calling: the identity endpoint's Principal. */
export interface Principal {
  type: 'api_key';
  org_id: string;
  org_display_name: string;
  /** The API key id for API-key principals. */
  actor_id: string;
  scopes: string[];
  deployment_mode: 'self_hosted' | 'saas';
  /** The key's environment (`live` or `test`). */
  environment: 'live' | 'test';
}
