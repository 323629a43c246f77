export {
  PROXY_TABLE,
  GATEWAY_PREFIXES,
  matchesPrefix,
  routeFor,
  ownerOf,
  prefixesOf,
  sessionPrefixesOf,
  type ProxyRoute,
  type RouteAuth,
  type RouteOwner,
  type ServiceName,
} from './proxy-table';
