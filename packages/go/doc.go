// Package presenceguard is the executor's offline check of Presence evidence: receipts
// (presence.receipt.v1), approval sets (presence.approval-set.v1) and webhook deliveries, with the
// same checks and check names as the TypeScript SDK and the Python package, and a guard that
// refuses evidence seen before. Standard library only; builds with Go 1.19.
//
// Numbers in actions are IEEE 754 doubles (RFC 8785): carry amounts and identifiers as strings.
package presenceguard
