/** Row types of migration 0018 (the console's approvers and its changes awaiting approval), as in `schema.ts`. */

export type ConsoleSettingsTable = {
  tenant_id: string;
  approvers_required: number;
  updated_at: number;
  updated_by: string | null;
};

export type ConsoleChangesTable = {
  id: string;
  tenant_id: string;
  requester_id: string;
  kind: string;
  target: string;
  /** JSON texts this service wrote. */
  params: string;
  before_json: string;
  after_json: string;
  change_json: string;
  approval_id: string;
  /** The approval page's link, sealed (domain/console/change-link.ts). */
  approval_url_sealed: string;
  binding_code: string;
  required: number;
  status: string;
  created_at: number;
  updated_at: number;
  finished_by: string | null;
};
