package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrForbiddenAddress is returned (wrapped in an *AddressError) when a
// webhook URL leads to an address the service must not call.
var ErrForbiddenAddress = errors.New("webhook: address not publicly reachable")

// AddressError names the refused address and why.
type AddressError struct {
	Host   string
	Addr   netip.Addr
	Reason string
	// AtConnect is set when the dialer refused the connection (the name
	// passed validation, or was not validated, but leads there now).
	AtConnect bool
}

func (e *AddressError) Error() string {
	if e.AtConnect {
		return fmt.Sprintf("webhook: connection to %s refused: %s is %s, which is not publicly reachable", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("webhook: %s resolves to %s (%s), which is not publicly reachable", e.Host, e.Addr, e.Reason)
}

func (e *AddressError) Unwrap() error { return ErrForbiddenAddress }

var forbiddenPrefixes = []struct {
	p      netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	// Addresses that tunnel to an IPv4 address, whose relay or
	// translator may reach inside networks: no webhook receiver needs
	// them, so they are refused whole rather than judged by the IPv4
	// address they carry (issue 14).
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:10::/28"), "ORCHID"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing"},
}

// ForbiddenReason says why ip must not be called, or "" when it is a
// public unicast address. IPv4-mapped and NAT64 addresses are judged by the
// IPv4 address they carry.
func ForbiddenReason(ip netip.Addr) string {
	ip = ip.Unmap()
	if nat64 := netip.MustParsePrefix("64:ff9b::/96"); nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip == netip.MustParseAddr("169.254.169.254"), ip == netip.MustParseAddr("fd00:ec2::254"):
		return "cloud metadata"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate():
		return "private"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, f := range forbiddenPrefixes {
		if f.p.Contains(ip) {
			return f.reason
		}
	}
	return ""
}

// Guard decides which addresses outbound requests may reach.
type Guard struct {
	// AllowPrivate lifts every address restriction (serve
	// --allow-private-webhooks, for development and tests only).
	AllowPrivate bool
	// LookupIP resolves host names; nil means net.DefaultResolver.
	LookupIP func(ctx context.Context, network, host string) ([]net.IP, error)
}

// CheckURL validates a webhook URL: https, a host, no credentials, and
// every address the host resolves to publicly reachable.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("webhook: URL: %w", err)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("webhook: URL must use https, not %q", u.Scheme)
	}
	if u.User != nil {
		return errors.New("webhook: URL must not carry credentials")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("webhook: URL has no host")
	}
	if g.AllowPrivate {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if r := ForbiddenReason(ip); r != "" {
			return &AddressError{Host: host, Addr: ip, Reason: r}
		}
		return nil
	}
	lookup := g.LookupIP
	if lookup == nil {
		lookup = net.DefaultResolver.LookupIP
	}
	ips, err := lookup(ctx, "ip", strings.TrimSuffix(host, "."))
	if err != nil {
		return fmt.Errorf("webhook: resolving %s: %w", host, err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("webhook: %s has no address", host)
	}
	for _, nip := range ips {
		ip, ok := netip.AddrFromSlice(nip)
		if !ok {
			return fmt.Errorf("webhook: %s resolved to an unreadable address", host)
		}
		if r := ForbiddenReason(ip); r != "" {
			return &AddressError{Host: host, Addr: ip.Unmap(), Reason: r}
		}
	}
	return nil
}

// control is a net.Dialer Control function: it runs after DNS resolution,
// on the very address about to be connected, so a name that resolved to a
// public address at validation time and to a private one now (DNS
// rebinding) is still refused.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: dialing %s: %w", address, err)
	}
	if r := ForbiddenReason(ap.Addr()); r != "" {
		return &AddressError{Host: address, Addr: ap.Addr().Unmap(), Reason: r, AtConnect: true}
	}
	return nil
}

// Dialer returns a dialer that refuses forbidden addresses at connect time.
func (g *Guard) Dialer() *net.Dialer {
	return &net.Dialer{Control: g.control}
}
