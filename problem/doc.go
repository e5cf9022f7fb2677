// Package problem decides what an API answers for an error: its code, the
// message to show and the fields at fault, from the error's type, never
// from its text. The code is plan.CodeOf's (every error of this module
// carries one); errors of the Kubernetes API are mapped by their reason;
// an error without a code is the embedder's fault, and its text is not
// shown.
//
//	doc := problem.Of(err)
//	if doc.Log { log the error }
//	write doc as JSON with status doc.Code and Content-Type problem.ContentType
//
// The JSON is an RFC 9457 problem detail (type, title, status, detail)
// with the fields at fault as the extension member "errors".
//
// It reads no clock and does no I/O.
package problem
