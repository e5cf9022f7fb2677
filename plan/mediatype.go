package plan

import (
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// FormatOfMediaType is the body format a Content-Type names: JSON for
// application/json and any +json type, YAML for application/yaml,
// application/x-yaml, text/yaml and any +yaml type. Anything else,
// including no Content-Type at all, is an *UnsupportedMediaTypeError
// (415): a body sent as a form or as plain text is refused before it is
// read, rather than guessed at. Parameters (charset=utf-8) are allowed.
func FormatOfMediaType(contentType string) (Format, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	switch {
	case strings.TrimSpace(contentType) == "":
		return FormatAuto, &UnsupportedMediaTypeError{}
	case err != nil:
		return FormatAuto, &UnsupportedMediaTypeError{ContentType: contentType}
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return FormatJSON, nil
	case mt == "application/yaml" || mt == "application/x-yaml" || mt == "text/yaml" || strings.HasSuffix(mt, "+yaml"):
		return FormatYAML, nil
	}
	return FormatAuto, &UnsupportedMediaTypeError{ContentType: contentType}
}

// UnsupportedMediaTypeError refuses a body whose Content-Type is neither
// JSON nor YAML.
type UnsupportedMediaTypeError struct {
	// ContentType is the header as sent; "" when there was none.
	ContentType string
}

func (e *UnsupportedMediaTypeError) Error() string {
	if e.ContentType == "" {
		return "the body has no Content-Type: send it as application/json or application/yaml"
	}
	return fmt.Sprintf("Content-Type %q is not supported: send the body as application/json or application/yaml", Shorten(e.ContentType, 100))
}

// HTTPCode is 415.
func (e *UnsupportedMediaTypeError) HTTPCode() int { return http.StatusUnsupportedMediaType }
