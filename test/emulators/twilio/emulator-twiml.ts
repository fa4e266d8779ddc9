/**
 * A tiny TwiML reader for the emulator: enough XML (elements, attributes, text, the five
 * entities and numeric references) to run what the dialer sends. Not a general XML parser.
 */

export interface TwimlNode {
  name: string
  attrs: Record<string, string>
  children: TwimlNode[]
  text: string
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

export function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16))
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10))
    return ENTITIES[ref] ?? whole
  })
}

/** The <Response> element of a TwiML document; throws on what it cannot read. */
export function parseTwiml(xml: string): TwimlNode {
  const body = xml.replace(/<\?xml[^?]*\?>/, '').replace(/<!--[\s\S]*?-->/g, '')
  const root: TwimlNode = { name: '#root', attrs: {}, children: [], text: '' }
  const stack: TwimlNode[] = [root]
  const tag = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/gy
  let match: RegExpExecArray | null
  let consumed = 0
  while ((match = tag.exec(body)) !== null) {
    consumed = tag.lastIndex
    const [, closing, name, attrText, selfClosing, text] = match
    const top = stack[stack.length - 1]!
    if (text !== undefined) {
      top.text += unescapeXml(text)
      continue
    }
    if (closing) {
      if (top.name !== name || stack.length === 1) throw new Error(`TwiML: unexpected </${name}>`)
      stack.pop()
      continue
    }
    const attrs: Record<string, string> = {}
    for (const a of (attrText ?? '').matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attrs[a[1]!] = unescapeXml(a[2] ?? a[3] ?? '')
    const node: TwimlNode = { name: name!, attrs, children: [], text: '' }
    top.children.push(node)
    if (!selfClosing) stack.push(node)
  }
  if (consumed !== body.length || stack.length !== 1) throw new Error('TwiML: not well-formed')
  const response = root.children.find((c) => c.name === 'Response')
  if (!response || root.text.trim() !== '') throw new Error('TwiML: no <Response>')
  return response
}
