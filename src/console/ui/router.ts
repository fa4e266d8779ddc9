import { useEffect, useState } from 'preact/hooks'

/** Each page is a URL under /console (linkable, back button works): the path, read and pushed with the History API. */
export function navigate(path: string): void {
  if (location.pathname + location.search === path) return
  history.pushState(null, '', path)
  dispatchEvent(new PopStateEvent('popstate'))
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname + location.search)
  useEffect(() => {
    const update = () => setPath(location.pathname + location.search)
    addEventListener('popstate', update)
    return () => removeEventListener('popstate', update)
  }, [])
  return path
}

/** A link that moves within the console without reloading the page. */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement)
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(anchor.getAttribute('href')!)
}
