/**
 * A built-in agent's instructions are a template: a few placeholders filled per call from the
 * lead, the campaign and the organization. Anything else in double braces is refused when the
 * campaign is saved, so a typo never reaches a call as literal braces.
 */

export const INSTRUCTIONS_MAX = 20_000
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g
const FIXED = new Set(['lead.name', 'lead.phone', 'lead.email', 'campaign.name', 'org.name'])
// A custom field's key as leads carry it: anything but braces and whitespace.
const FIELD = /^lead\.fields\.([^\s{}]+)$/

export interface TemplateValues {
  lead: { name: string | null; phone: string; email: string | null; fields: Record<string, string> }
  campaign: { name: string }
  org: { name: string }
}

/** The placeholders of a template that are not allowed (as written, trimmed), in order. */
export function unknownPlaceholders(template: string): string[] {
  const bad: string[] = []
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1]!.trim()
    if (!FIXED.has(name) && !FIELD.test(name)) bad.push(name)
  }
  return bad
}

/** The template filled for one call; a value the lead lacks is empty. Unknown placeholders are left as written. */
export function renderInstructions(template: string, values: TemplateValues): string {
  return template.replace(PLACEHOLDER, (whole, raw: string) => {
    const name = raw.trim()
    const field = FIELD.exec(name)
    if (field) return values.lead.fields[field[1]!] ?? ''
    switch (name) {
      case 'lead.name': return values.lead.name ?? ''
      case 'lead.phone': return values.lead.phone
      case 'lead.email': return values.lead.email ?? ''
      case 'campaign.name': return values.campaign.name
      case 'org.name': return values.org.name
      default: return whole
    }
  })
}
