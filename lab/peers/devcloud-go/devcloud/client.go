package devcloud

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"k8s.io/cloud-provider/api"
)

// client talks to devcloud's /v1 API with a bearer token.
type client struct {
	base  string
	token string
	http  *http.Client
}

type result struct {
	status int
	body   []byte
	header http.Header
}

type cloudFailure struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

func (r *result) failure() cloudFailure {
	var f cloudFailure
	_ = json.Unmarshal(r.body, &f)
	return f
}

func (c *client) do(ctx context.Context, method, path string, body any) (*result, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/v1"+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &result{status: res.StatusCode, body: b, header: res.Header}, nil
}

// cloudError: 429 is a retry after Retry-After seconds (at least 1), anything else an error with devcloud's words.
func cloudError(what string, r *result) error {
	f := r.failure()
	text := fmt.Sprintf("%s: devcloud answered %d", what, r.status)
	if f.Error.Code != "" {
		text += " " + f.Error.Code
	}
	if f.Error.Message != "" {
		text += ": " + f.Error.Message
	}
	if r.status == http.StatusTooManyRequests {
		secs, err := strconv.Atoi(strings.TrimSpace(r.header.Get("Retry-After")))
		if err != nil || secs < 1 {
			secs = 1
		}
		return api.NewRetryError(text, time.Duration(secs)*time.Second)
	}
	return fmt.Errorf("%s", text)
}

// get decodes a 200 answer into out; found is false for 404.
func (c *client) get(ctx context.Context, path, what string, out any) (found bool, err error) {
	r, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	if r.status == http.StatusNotFound {
		return false, nil
	}
	if r.status != http.StatusOK {
		return false, cloudError(what, r)
	}
	if err := json.Unmarshal(r.body, out); err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	return true, nil
}

// listAll follows nextPageToken; query is already encoded ("" or "a=b&c=d").
func listAll[T any](ctx context.Context, c *client, path, query, what string) ([]T, error) {
	var all []T
	token := ""
	for {
		q := "limit=1000"
		if query != "" {
			q += "&" + query
		}
		if token != "" {
			q += "&pageToken=" + url.QueryEscape(token)
		}
		var page struct {
			Items         []T     `json:"items"`
			NextPageToken *string `json:"nextPageToken"`
		}
		if _, err := c.get(ctx, path+"?"+q, what, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextPageToken == nil || *page.NextPageToken == "" {
			return all, nil
		}
		token = *page.NextPageToken
	}
}
