/**
 * The `dialer admin` command table: each command is one admin API request. Parsing, help and
 * error messages are all read from here, so a new command needs only a row.
 */
import { CARRIER_FLAGS, CARRIER_NOTES, carrierBody, withCarrierToken } from './carrier-command'
import { CARRIERS_FLAGS, CARRIERS_NOTES, carriersBody, withCarriers } from './carriers-command'
import { USER_CREATE_FLAGS, USER_NOTES, USER_UPDATE_FLAGS, userBody, withPassword } from './user-command'
import { AGENT_KEY_FLAGS, AGENT_KEY_NOTES, agentKeyBody, withAgentKey } from './agent-key-input'
import { STATE_DNC_LISTS } from '../domain/dnc/state-registries'

import type { FieldKind } from './field-kind'

export type { FieldKind }

export interface Command {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** `:id` is the positional argument (named by `arg`), `:org` the --org flag. */
  path: string
  summary: string
  /** The positional argument's name in help, e.g. ORG_ID. */
  arg?: string
  /** JSON body fields (POST/PATCH), as --kebab-case flags. */
  fields?: Record<string, FieldKind>
  /** Query parameters (GET), as flags. */
  query?: string[]
  /** Flags the command cannot do without (checked before sending). */
  required?: string[]
  /** The positional argument (`arg`) is a file, streamed as the body with this content type. */
  upload?: string
  /** Turns the flags' values into the body, when the body is not flag-for-field (`org carrier`). */
  build?: (fields: Record<string, unknown>) => Record<string, unknown>
  /** Completes the body just before it is sent (reads a secret from a file or stdin). */
  complete?: (fields: Record<string, unknown>, body: Record<string, unknown>) => Record<string, unknown>
  note?: string
  example: string
}

const orgFields: Record<string, FieldKind> = {
  name: 'string', timezone: 'string', rate_usd_per_minute: 'number', plan_requests_per_minute: 'int',
  recording_enabled: 'bool', webhook_endpoint_limit: 'int', outcome_labels: 'json', recording_retention_days: 'int',
  ai_prices: 'json', caller_id_rest_days: 'int',
}
const keyFields: Record<string, FieldKind> = {
  name: 'string', permissions: 'list', campaign_ids: 'nullable-list', max_concurrent: 'int',
  requests_per_minute: 'int', burst: 'int', leads_per_minute: 'int', expires_at: 'nullable-string',
}
const campaignFields: Record<string, FieldKind> = {
  name: 'string', status: 'string', lines: 'int', sdrs: 'people', closers: 'people', requires_consent: 'bool',
  call_now_default: 'bool', late_minutes: 'int', calling_hours: 'json', max_attempts: 'int', retry_minutes: 'int',
  duplicate_window_hours: 'int', cooldown_hours: 'int', spend_cap_usd: 'nullable-number', voicemail: 'json',
  recording_notice: 'json', automated_voice: 'bool', dial_mode: 'string', max_abandon_rate: 'number', abandon_message: 'json',
  ai_agent: 'json', ...AGENT_KEY_FLAGS,
}
const listQuery = ['limit', 'starting_after']
const ORG = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const CAMPAIGN = '0190a1b2-c3d4-7e5f-8a9b-111111111111'
const USER = '0190a1b2-c3d4-7e5f-8a9b-222222222222'
const IMPORT = '0190a1b2-c3d4-7e5f-8a9b-333333333333'
const CALL = '0190a1b2-c3d4-7e5f-8a9b-444444444444'

export const COMMANDS: Record<string, Command> = {
  'org create': {
    method: 'POST', path: '/orgs', fields: orgFields, required: ['name'], summary: 'Create an organization.',
    example: 'dialer admin org create --name "Acme Roofing" --timezone America/Chicago',
  },
  'org list': { method: 'GET', path: '/orgs', query: listQuery, summary: 'List organizations.', example: 'dialer admin org list --limit 10' },
  'org get': { method: 'GET', path: '/orgs/:id', arg: 'ORG_ID', summary: 'Show one organization.', example: `dialer admin org get ${ORG}` },
  'org update': {
    method: 'PATCH', path: '/orgs/:id', arg: 'ORG_ID', fields: orgFields, summary: "Change an organization's settings (only the flags given).",
    example: `dialer admin org update ${ORG} --plan-requests-per-minute 1200`,
  },
  'org carrier': {
    method: 'PATCH', path: '/orgs/:id', arg: 'ORG_ID', fields: CARRIER_FLAGS, build: carrierBody, complete: withCarrierToken,
    summary: "Set the carrier the organization's live calls go through: the simulator or Twilio.",
    note: 'The auth token is read from a file or stdin, never from the command line (it would show in ps and shell history); '
      + 'left out, the stored one is kept while the account and endpoint stay the same.',
    example: `dialer admin org carrier ${ORG} --twilio --account-sid AC... --auth-token-file /etc/dialer/twilio-token --caller-id +14155550100`,
  },
  'org carriers': {
    method: 'PATCH', path: '/orgs/:id', arg: 'ORG_ID', fields: CARRIERS_FLAGS, build: carriersBody, complete: withCarriers,
    summary: "Set a pool of carriers the organization's live calls go through by weight, failing over between them.",
    note: 'Each entry is a carrier object as `org carrier` sends it, with "weight" (1-100), one per kind. Secrets (auth_token, api_key) '
      + 'only in --json-file or --json-stdin; left out, each kind keeps its stored one. --json \'[]\' goes back to the default carrier.',
    example: `dialer admin org carriers ${ORG} --json-file /etc/dialer/carriers.json`,
  },
  'user create': {
    method: 'POST', path: '/orgs/:org/users', fields: USER_CREATE_FLAGS, build: userBody, complete: withPassword, required: ['email', 'role'],
    summary: 'Create a console account for a person of an organization.',
    note: 'Without --password-file or --password-stdin a password is made and shown once in the reply.',
    example: `dialer admin user create --org ${ORG} --email sam@example.com --role sdr --name "Sam Chen"`,
  },
  'user list': { method: 'GET', path: '/orgs/:org/users', query: listQuery, summary: "List an organization's console accounts.", example: `dialer admin user list --org ${ORG}` },
  'user get': { method: 'GET', path: '/users/:id', arg: 'USER_ID', summary: 'Show one console account.', example: `dialer admin user get ${USER}` },
  'user update': {
    method: 'PATCH', path: '/users/:id', arg: 'USER_ID', fields: USER_UPDATE_FLAGS, build: userBody, complete: withPassword,
    summary: 'Change a console account: role, name, password, or disable it (a new password or disabling signs it out).',
    example: `dialer admin user update ${USER} --disabled true`,
  },
  'key create': {
    method: 'POST', path: '/orgs/:org/keys', fields: { ...keyFields, mode: 'string' }, required: ['name', 'mode'],
    summary: 'Create an API key for an organization.', note: 'The reply shows the secret once; keep it.',
    example: `dialer admin key create --org ${ORG} --name crm --mode live --permissions leads:write,leads:read`,
  },
  'key list': { method: 'GET', path: '/orgs/:org/keys', query: listQuery, summary: "List an organization's API keys.", example: `dialer admin key list --org ${ORG}` },
  'key get': { method: 'GET', path: '/keys/:id', arg: 'KEY_ID', summary: 'Show one API key (never its secret).', example: 'dialer admin key get dk_live_...' },
  'key update': {
    method: 'PATCH', path: '/keys/:id', arg: 'KEY_ID', fields: { ...keyFields, disabled: 'bool' }, summary: "Change an API key's limits, scope or name (only the flags given).",
    example: 'dialer admin key update dk_live_... --requests-per-minute 600 --burst 50',
  },
  'key revoke': { method: 'POST', path: '/keys/:id/revoke', arg: 'KEY_ID', summary: 'Revoke an API key for good.', example: 'dialer admin key revoke dk_live_...' },
  'campaign create': {
    method: 'POST', path: '/orgs/:org/campaigns', fields: campaignFields, build: agentKeyBody, complete: withAgentKey, required: ['name'], summary: 'Create a campaign in an organization.',
    example: `dialer admin campaign create --org ${ORG} --name "Spring roofs" --status active --sdrs "Alex Rivera" --lines 4`,
  },
  'campaign list': { method: 'GET', path: '/orgs/:org/campaigns', query: listQuery, summary: "List an organization's campaigns.", example: `dialer admin campaign list --org ${ORG}` },
  'campaign get': { method: 'GET', path: '/campaigns/:id', arg: 'CAMPAIGN_ID', summary: 'Show one campaign with all its settings.', example: `dialer admin campaign get ${CAMPAIGN}` },
  'campaign update': {
    method: 'PATCH', path: '/campaigns/:id', arg: 'CAMPAIGN_ID', fields: campaignFields, build: agentKeyBody, complete: withAgentKey, summary: "Change a campaign's settings (only the flags given).",
    example: `dialer admin campaign update ${CAMPAIGN} --lines 6 --spend-cap-usd null`,
  },
  'campaign retire-number': {
    method: 'POST', path: '/campaigns/:id/retired_numbers', arg: 'CAMPAIGN_ID', fields: { phone: 'string', livemode: 'bool', reason: 'string' },
    required: ['phone'], summary: 'Retire a phone number in a campaign: its leads are refused from now on.',
    example: `dialer admin campaign retire-number ${CAMPAIGN} --phone "+1 415 555 2671"`,
  },
  'campaign retired-numbers': {
    method: 'GET', path: '/campaigns/:id/retired_numbers', arg: 'CAMPAIGN_ID', query: listQuery, summary: "List a campaign's retired numbers.",
    example: `dialer admin campaign retired-numbers ${CAMPAIGN}`,
  },
  'campaign abandonment': {
    method: 'GET', path: '/campaigns/:id/abandonment', arg: 'CAMPAIGN_ID', query: ['days'],
    summary: "A campaign's abandonment record: live calls a person answered and those nobody reached within 2 s, day by day (--days 1-90, default 30).",
    example: `dialer admin campaign abandonment ${CAMPAIGN} --days 7`,
  },
  'seat add': {
    method: 'POST', path: '/campaigns/:id/seats', arg: 'CAMPAIGN_ID', fields: { name: 'string', phone: 'string' }, required: ['name', 'phone'],
    summary: "Seat a person of a power or predictive campaign: their phone (one of the campaign's SDRs or closers) is called and they press 1 to sit.",
    note: 'The organization needs a live Twilio carrier with a caller ID. The seat reads calling until they press 1, then waiting (list shows it).',
    example: `dialer admin seat add ${CAMPAIGN} --name "Ada Park" --phone +13125550111`,
  },
  'seat list': {
    method: 'GET', path: '/campaigns/:id/seats', arg: 'CAMPAIGN_ID', query: listQuery, summary: "List a campaign's seats and their state, newest first, ended ones too.",
    example: `dialer admin seat list ${CAMPAIGN}`,
  },
  'seat end': {
    method: 'DELETE', path: '/campaigns/:id/seats/:seat', arg: 'CAMPAIGN_ID SEAT_ID', summary: "End a seat: its person's call is hung up.",
    example: `dialer admin seat end ${CAMPAIGN} 0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5f`,
  },
  'job list': { method: 'GET', path: '/jobs', summary: 'List the periodic jobs.', example: 'dialer admin job list' },
  'job run': { method: 'POST', path: '/jobs/:id/run', arg: 'JOB_NAME', summary: 'Run a periodic job now.', example: 'dialer admin job run retention_purge' },
  'lead import': {
    method: 'POST', path: '/orgs/:org/leads/import', arg: 'FILE', upload: 'text/csv', fields: { campaign_id: 'string', dry_run: 'switch', map: 'string' }, required: ['campaign_id'],
    summary: 'Import leads from a CSV file into a campaign: good rows are added, bad ones listed with their line and error code.',
    note: 'The first line names the columns (phone, name, email, address, external_id, fields.<key>; others are left out unless --map sends them somewhere). No lead.created events. Up to 200,000 rows or 20 MB. '
      + 'The reply\'s import_id is the import\'s record (import get); the same file sent again after a stop resumes it.',
    example: `dialer admin lead import leads.csv --org ${ORG} --campaign-id ${CAMPAIGN} --map '{"Mobile":"phone"}'`,
  },
  'call get': {
    method: 'GET', path: '/calls/:id', arg: 'CALL_ID', summary: 'Show one call as the API serves it, with its carrier, recording consent and AI seat (ai_seated, ai_first_audio_ms).',
    example: `dialer admin call get ${CALL}`,
  },
  'call supervise': {
    method: 'POST', path: '/calls/:id/supervise', arg: 'CALL_ID', fields: { mode: 'string', phone: 'string' }, required: ['mode', 'phone'],
    summary: "Call a supervisor's phone into a live call's seat conference: --mode listen (muted), whisper (only the seat's person hears) or barge.",
    note: 'Only a live Twilio call in a seat\'s conference (power and predictive campaigns, or a lead calling back into a waiting seat); else not_found.',
    example: `dialer admin call supervise ${CALL} --mode listen --phone +13125550160`,
  },
  'import get': { method: 'GET', path: '/imports/:id', arg: 'IMPORT_ID', summary: 'Show one lead CSV import: running, done or interrupted, and its row counts.', example: `dialer admin import get ${IMPORT}` },
  'import list': { method: 'GET', path: '/orgs/:org/imports', query: listQuery, summary: "List an organization's lead CSV imports, newest first.", example: `dialer admin import list --org ${ORG}` },
  'registry import': {
    method: 'POST', path: '/dnc_registry', arg: 'FILE', upload: 'text/plain', fields: { force: 'switch', list: 'string' },
    summary: "Load the national Do Not Call registry file, or a state's list with --list TX (replaces that list only).",
    note: 'One 10-digit number per line, as the FTC download gives it; bad lines are skipped and listed in `rejected`. Raise --timeout for a very large file. '
      + `--list takes "national" (the default) or a state with its own list: ${STATE_DNC_LISTS.map((l) => l.state).join(', ')}. `
      + 'A file that would shrink a list of 1,000 numbers or more to under half is refused (registry_shrink) unless --force is given.',
    example: 'dialer admin registry import /var/tmp/dnc-2026-01.txt',
  },
  'registry show': { method: 'GET', path: '/dnc_registry', summary: 'Show the registry in use: how many numbers, imported when, national and per state list.', example: 'dialer admin registry show' },
  'clock get': { method: 'GET', path: '/clock', summary: 'Read the fake clock.', note: 'Only with DIALER_FAKE_CLOCK=1.', example: 'dialer admin clock get' },
  'clock advance': {
    method: 'POST', path: '/clock', fields: { advance_seconds: 'number', now: 'string' }, summary: 'Move the fake clock forward, running what comes due.',
    note: 'Only with DIALER_FAKE_CLOCK=1. Give --advance-seconds or --now, not both.', example: 'dialer admin clock advance --advance-seconds 3600',
  },
}

/** What each flag means, for help; the type comes from the field's kind. */
export const FLAG_NOTES: Record<string, string> = {
  org: 'the organization id',
  name: 'display name',
  timezone: 'IANA time zone, e.g. America/Chicago',
  rate_usd_per_minute: 'price of a call minute in USD',
  plan_requests_per_minute: "the organization's request ceiling (120 to 100000)",
  recording_enabled: 'record calls',
  webhook_endpoint_limit: 'most webhook endpoints allowed (0 to 1000)',
  outcome_labels: 'label -> outcome, e.g. {"Hot lead":"interested"}',
  recording_retention_days: 'days call recordings are kept (1 to 3650, default 90)',
  ai_prices: 'AI cost, USD per million tokens by model: {"gpt-realtime":{"input_text":4,"input_audio":32,"input_cached":0.4,"output_text":16,"output_audio":64}}; null = no prices (docs/agents.md)',
  voicemail: 'dropped on answering machines: {"audio_url":"https://..."} or {"say":"..."}; null = none',
  recording_notice: 'played before recording where every party must consent: {"say":"..."} or {"audio_url":"https://..."}; null = "This call may be recorded."',
  dial_mode: 'bridge (default: people rung after the answer), power (a waiting seat first) or predictive (paced lines per seat)',
  max_abandon_rate: 'the 30-day abandonment rate predictive pacing keeps at or under (above 0, at most 0.03; default 0.03)',
  abandon_message: 'played within 2 s when no seat can take a person who answers: {"say":"..."} (1-500) or {"audio_url":"https://..."}; power and predictive need one',
  ai_agent: 'the AI seat: {"url":"wss://...","disclosure":{"say":"..."},"parameters":{...},"first_audio_ms":2000}, or the built-in agent {"kind":"openai_realtime","model":"...","voice":"...","instructions":"...","disclosure":{"say":"..."}} with its key from --ai-agent-key-file or --ai-agent-key-stdin (docs/agents.md); needs --requires-consent true; null = people first',
  mode: 'live or test (key create); listen, whisper or barge (call supervise)',
  permissions: 'e.g. leads:write,leads:read (default: every permission)',
  campaign_ids: 'campaigns the key may use; null = all',
  max_concurrent: 'requests in flight at once (1 to 50)',
  requests_per_minute: 'request rate (1 to 100000)',
  burst: 'requests allowed above the rate at once',
  leads_per_minute: 'new leads per minute',
  expires_at: 'ISO 8601 time the key stops working; null = never',
  disabled: 'turn the key off (or on again) without revoking it',
  status: 'draft, active, paused or completed',
  lines: 'calls at once (1 to 1000)',
  sdrs: 'comma-separated SDR names, each with its phone for live calls as "Alex Rivera <+14155550123>"; empty clears',
  closers: 'comma-separated closer names (with <phone> as for --sdrs); empty clears',
  requires_consent: 'refuse leads without consent',
  call_now_default: 'new leads are called at once unless they say otherwise',
  late_minutes: 'minutes a lead may wait before it counts as late',
  calling_hours: 'e.g. {"start":"09:00","end":"20:00"}, the lead\'s local time, within 08:00-21:00',
  max_attempts: 'call attempts per lead',
  retry_minutes: 'minutes between attempts',
  duplicate_window_hours: 'hours in which a resent lead is a duplicate, not queued again',
  cooldown_hours: 'hours after an answered call before the number is called again',
  automated_voice: 'calls play a prerecorded message or an AI voice: the automated-call rules apply (true/false)',
  spend_cap_usd: 'spend cap in USD; null = none',
  phone: 'the phone number, any common format',
  livemode: 'live (true, default) or test numbers',
  reason: 'why, for the record',
  advance_seconds: 'seconds to move forward',
  now: 'ISO 8601 time to move to',
  limit: 'items per page (1 to 100, default 50)',
  starting_after: 'the last id of the previous page',
  ...CARRIER_NOTES,
  ...CARRIERS_NOTES,
  caller_id_rest_days: 'days a caller ID far below its baseline is rested (0 to 90, default 7; 0: never rested, only shown)',
  ...USER_NOTES,
  ...AGENT_KEY_NOTES,
  campaign_id: 'the campaign the leads join',
  dry_run: 'check every row and report, without adding any',
  map: 'column header -> lead field as JSON, e.g. {"Mobile":"phone","Roof":"fields.roof"}; "" leaves a column out',
  force: 'replace the registry even when the file would shrink it to under half',
}

export const KIND_TYPES: Record<FieldKind, string> = {
  string: 'TEXT',
  'nullable-string': 'TEXT|null',
  int: 'INTEGER',
  number: 'NUMBER',
  'nullable-number': 'NUMBER|null',
  bool: 'true|false',
  list: 'LIST',
  'nullable-list': 'LIST|null',
  people: 'NAMES',
  json: 'JSON',
  switch: '',
}

/** Types more telling than the kind's, in help. */
export const FLAG_TYPES: Record<string, string> = {
  mode: 'MODE', status: 'STATUS', phone: 'PHONE', timezone: 'ZONE', expires_at: 'TIME|null', now: 'TIME',
}

/** What a 404 on the path's first id is "no ... of": from the path segment before it. */
const NOUNS: Record<string, string> = { orgs: 'organization', keys: 'API key', campaigns: 'campaign', jobs: 'job', users: 'user', imports: 'import' }

export function objectNoun(path: string): string | null {
  const match = /\/([a-z_]+)\/:(?:id|org)\b/.exec(path)
  return match ? (NOUNS[match[1]!] ?? null) : null
}

export const resources = (): string[] => [...new Set(Object.keys(COMMANDS).map((name) => name.split(' ')[0]!))]
