import {
  type AnchorHTMLAttributes,
  createContext,
  type MouseEvent,
  useContext,
  useEffect,
  useState,
} from "react";

/** The current location as the app sees it. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

const read = (): Location => ({
  path: window.location.pathname,
  query: new URLSearchParams(window.location.search),
});

const LocationContext = createContext<Location>({ path: "/", query: new URLSearchParams() });

/** Moves to `to` without a reload (history API); the explorer server answers every route with the app. */
export function navigate(to: string, replace = false): void {
  if (replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.dispatchEvent(new PopStateEvent("popstate"));
  window.scrollTo(0, 0);
}

/** Provides the current location to `useLocation`, following back/forward and `navigate`. */
export function RouterProvider({ children }: { children: React.ReactNode }) {
  const [location, setLocation] = useState(read);
  useEffect(() => {
    const onPop = () => setLocation(read());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  return <LocationContext.Provider value={location}>{children}</LocationContext.Provider>;
}

/** The current location. */
export function useLocation(): Location {
  return useContext(LocationContext);
}

/** Matches `path` against a pattern like `/block/:id`; returns the parameters or null. */
export function matchRoute(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/").filter(Boolean);
  const s = path.split("/").filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    const seg = s[i]!;
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(seg);
    else if (part !== seg) return null;
  }
  return params;
}

/** An in-app link: a real `<a href>` (open in new tab works) that navigates without a reload. */
export function Link({ to, children, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
