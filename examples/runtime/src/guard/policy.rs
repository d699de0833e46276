//! Where the runtime may be reached from: the `Host` names it answers to and the origins
//! allowed to call it cross-origin (`--allowed-host`, `--allow-origin`). Checked on every
//! request by the guard; held by the app state.

use std::net::IpAddr;

/// Where the runtime may be reached from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// `(host, port)`, the host lowercase (IPv6 in brackets); no port: any port.
    hosts: Vec<(String, Option<u16>)>,
    /// Exact origins (`scheme://host[:port]`, lowercase) allowed cross-origin, with CORS.
    origins: Vec<String>,
}

impl Policy {
    /// The defaults for a runtime on `port`, bound to `bound`, plus what the flags add.
    pub fn new(
        port: u16,
        bound: &str,
        allowed_hosts: &[String],
        allow_origins: &[String],
    ) -> Result<Policy, String> {
        let mut hosts: Vec<(String, Option<u16>)> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| (h.to_string(), Some(port)))
            .collect();
        // The address bound to is safe to name (a rebinding attack needs a host name of
        // its own); a wildcard address is not a name anyone reaches the runtime by.
        let bound_name = match bound.parse::<IpAddr>() {
            Ok(ip) if ip.is_unspecified() => None,
            Ok(IpAddr::V6(ip)) => Some(format!("[{ip}]")),
            Ok(IpAddr::V4(ip)) => Some(ip.to_string()),
            Err(_) => Some(bound.to_ascii_lowercase()),
        };
        if let Some(name) = bound_name {
            hosts.push((name, Some(port)));
        }
        Policy::with(hosts, allowed_hosts, allow_origins)
    }

    /// The defaults for a runtime a host app serves, on a port it alone knows: the
    /// loopback names on any port (a rebinding attack needs a host name of its own), plus
    /// the hosts and origins the app names.
    pub fn embedded(allowed_hosts: &[String], allow_origins: &[String]) -> Result<Policy, String> {
        let hosts = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| (h.to_string(), None))
            .collect();
        Policy::with(hosts, allowed_hosts, allow_origins)
    }

    /// `hosts` and what the flags add.
    fn with(
        mut hosts: Vec<(String, Option<u16>)>,
        allowed_hosts: &[String],
        allow_origins: &[String],
    ) -> Result<Policy, String> {
        for value in allowed_hosts {
            let parsed = parse_host(value)
                .ok_or_else(|| format!("--allowed-host: not a host[:port]: {value}"))?;
            hosts.push(parsed);
        }
        hosts.dedup();
        let origins = allow_origins
            .iter()
            .map(|o| {
                normalize_origin(o).ok_or_else(|| {
                    format!("--allow-origin: not an origin like https://app.example.com: {o}")
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Policy { hosts, origins })
    }

    pub(super) fn host_allowed(&self, host: &str) -> bool {
        let Some((name, port)) = parse_host(host) else {
            return false;
        };
        self.hosts
            .iter()
            .any(|(h, p)| *h == name && (p.is_none() || *p == port))
    }

    pub(super) fn origin_allowed(&self, origin: &str) -> bool {
        normalize_origin(origin).is_some_and(|o| self.origins.contains(&o))
    }
}

/// `host[:port]` (IPv6 in brackets) as `(lowercase host, port)`; `None` if malformed.
pub fn parse_host(value: &str) -> Option<(String, Option<u16>)> {
    let value = value.trim().to_ascii_lowercase();
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (ip, after) = rest.split_once(']')?;
        ip.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{ip}]"), port)
    } else {
        match value.rsplit_once(':') {
            Some((h, p)) => (h.to_owned(), Some(p)),
            None => (value.clone(), None),
        }
    };
    let valid_name = !host.is_empty()
        && (host.starts_with('[')
            || host
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-' || c == b'_'));
    if !valid_name {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((host, port))
}

/// `scheme://host[:port]` lowercase, without a trailing slash; `None` for anything else
/// (paths, `null`, wildcards).
pub fn normalize_origin(value: &str) -> Option<String> {
    let value = value.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, authority) = value.split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    parse_host(authority)?;
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(hosts: &[&str], origins: &[&str]) -> Policy {
        let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Policy::new(8080, "127.0.0.1", &own(hosts), &own(origins)).unwrap()
    }

    #[test]
    fn hosts_default_to_loopback_names_on_our_port() {
        let p = policy(&[], &[]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
        ] {
            assert!(p.host_allowed(ok), "{ok}");
        }
        for refused in [
            "127.0.0.1",
            "localhost:8081",
            "evil.example:8080",
            "127.0.0.1.nip.io:8080",
            "",
            "[::1",
            "a b:8080",
        ] {
            assert!(!p.host_allowed(refused), "{refused}");
        }
        let p = policy(&["chat.example.com", "lan-box:9000"], &[]);
        assert!(p.host_allowed("chat.example.com"));
        assert!(p.host_allowed("chat.example.com:443"));
        assert!(p.host_allowed("lan-box:9000"));
        assert!(!p.host_allowed("lan-box:8080"));
        // The bound address, unless it is a wildcard.
        let bound = Policy::new(8080, "192.168.1.5", &[], &[]).unwrap();
        assert!(bound.host_allowed("192.168.1.5:8080"));
        let any = Policy::new(8080, "0.0.0.0", &[], &[]).unwrap();
        assert!(!any.host_allowed("0.0.0.0:8080"));
        assert!(!any.host_allowed("192.168.1.5:8080"));
        assert!(Policy::new(8080, "::", &[], &["not an origin".into()]).is_err());
        assert!(Policy::new(8080, "::", &["bad host!".into()], &[]).is_err());
    }

    #[test]
    fn origins_are_exact_and_normalized() {
        let p = policy(&[], &["https://App.example.com/"]);
        assert!(p.origin_allowed("https://app.example.com"));
        assert!(!p.origin_allowed("http://app.example.com"));
        assert!(!p.origin_allowed("https://app.example.com.evil.com"));
        assert!(!p.origin_allowed("null"));
        assert_eq!(normalize_origin("*"), None);
        assert_eq!(normalize_origin("https://x.com/path"), None);
    }

    #[test]
    fn embedded_the_loopback_names_go_with_any_port() {
        let p = Policy::embedded(&["chat.example.com:443".into()], &[]).unwrap();
        assert!(p.host_allowed("localhost:3000"));
        assert!(p.host_allowed("127.0.0.1"));
        assert!(p.host_allowed("chat.example.com:443"));
        assert!(!p.host_allowed("chat.example.com:8443"));
        assert!(!p.host_allowed("evil.example:3000"));
    }
}
