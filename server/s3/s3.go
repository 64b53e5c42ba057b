// Package s3 is the scale-out image store of the reference server: a
// store.FileStore on any S3-compatible object store (AWS S3, MinIO, Ceph,
// versitygw, ...) through github.com/minio/minio-go/v7, so that several
// replicas share the images. Signed file URLs do not change: the server
// still signs them and serves the bytes through Open, so a bucket never
// needs to be public and no presigned URL of the store leaks out.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/tambua/tambua/server/store"
)

// ErrBadKey is returned for a key that store.ValidFileKey refuses.
var ErrBadKey = errors.New("s3: invalid key")

// Config says where the bucket is.
type Config struct {
	// Endpoint is host[:port] of the S3 API; empty means AWS S3.
	Endpoint string
	// Insecure talks plain HTTP to the endpoint (a loopback test server,
	// a gateway inside the cluster).
	Insecure bool
	Region   string
	Bucket   string
	// Prefix is prepended, with a '/', to every key.
	Prefix string
	// PathStyle addresses the bucket as ENDPOINT/BUCKET rather than
	// BUCKET.ENDPOINT, as most self-hosted servers want. Unset, the
	// client decides from the endpoint.
	PathStyle *bool
	// Create makes the bucket when it does not exist.
	Create bool
	// Creds are the credentials; nil takes them from the environment
	// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, then MINIO_ROOT_USER /
	// MINIO_ROOT_PASSWORD), then ~/.aws/credentials, then the instance's
	// IAM role.
	Creds *credentials.Credentials
}

// ParseURL reads a store address of the form
//
//	s3://BUCKET[/PREFIX]?endpoint=http://host:9000&region=R&path_style=true&create=true
//
// endpoint may carry a scheme (http:// for plain HTTP, https:// by
// default) and is AWS S3 when absent. Credentials never come in the URL,
// which ends up in process lists and logs: they come from the
// environment (Config.Creds).
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("s3: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" {
		return Config{}, fmt.Errorf("s3: %q: want s3://BUCKET[/PREFIX]?endpoint=...", raw)
	}
	if u.User != nil {
		return Config{}, fmt.Errorf("s3: credentials do not go in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	c := Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	if c.Prefix != "" && !store.ValidFileKey(c.Prefix) {
		return Config{}, fmt.Errorf("s3: prefix %q: segments of [A-Za-z0-9_.-]", c.Prefix)
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "endpoint", "region", "path_style", "create":
		default:
			return Config{}, fmt.Errorf("s3: unknown parameter %q (endpoint, region, path_style, create)", k)
		}
	}
	if ep := q.Get("endpoint"); ep != "" {
		if !strings.Contains(ep, "://") {
			ep = "https://" + ep
		}
		e, err := url.Parse(ep)
		if err != nil || e.Host == "" || (e.Scheme != "http" && e.Scheme != "https") || strings.Trim(e.Path, "/") != "" {
			return Config{}, fmt.Errorf("s3: endpoint %q: want http(s)://host[:port]", q.Get("endpoint"))
		}
		c.Endpoint, c.Insecure = e.Host, e.Scheme == "http"
	}
	c.Region = q.Get("region")
	for _, b := range []struct {
		name string
		set  func(bool)
	}{
		{"path_style", func(v bool) { c.PathStyle = &v }},
		{"create", func(v bool) { c.Create = v }},
	} {
		if s := q.Get(b.name); s != "" {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return Config{}, fmt.Errorf("s3: %s=%q: want true or false", b.name, s)
			}
			b.set(v)
		}
	}
	return c, nil
}

// Bucket stores files as objects of one bucket.
type Bucket struct {
	client *minio.Client
	bucket string
	prefix string
}

var _ store.FileStore = (*Bucket)(nil)

// Open connects to the bucket of the address (see ParseURL).
func Open(ctx context.Context, raw string) (*Bucket, error) {
	c, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	return New(ctx, c)
}

// New connects to the bucket c names and checks that it is there
// (creating it if c.Create).
func New(ctx context.Context, c Config) (*Bucket, error) {
	if c.Bucket == "" {
		return nil, errors.New("s3: no bucket")
	}
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = "s3.amazonaws.com"
	}
	creds := c.Creds
	if creds == nil {
		creds = credentials.NewChainCredentials([]credentials.Provider{
			&credentials.EnvAWS{}, &credentials.EnvMinio{}, &credentials.FileAWSCredentials{}, &credentials.IAM{Client: &http.Client{Timeout: 5 * time.Second}},
		})
	}
	opts := &minio.Options{Creds: creds, Secure: !c.Insecure, Region: c.Region}
	if c.PathStyle != nil {
		opts.BucketLookup = minio.BucketLookupDNS
		if *c.PathStyle {
			opts.BucketLookup = minio.BucketLookupPath
		}
	}
	client, err := minio.New(endpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	b := &Bucket{client: client, bucket: c.Bucket, prefix: c.Prefix}
	ok, err := client.BucketExists(ctx, c.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3: bucket %s at %s: %w", c.Bucket, endpoint, err)
	}
	if !ok {
		if !c.Create {
			return nil, fmt.Errorf("s3: bucket %s does not exist at %s (add create=true to make it)", c.Bucket, endpoint)
		}
		if err := client.MakeBucket(ctx, c.Bucket, minio.MakeBucketOptions{Region: c.Region}); err != nil {
			// Replicas starting together race to make it: the loser finds
			// it made.
			if ok, _ := client.BucketExists(ctx, c.Bucket); !ok {
				return nil, fmt.Errorf("s3: make bucket %s: %w", c.Bucket, err)
			}
		}
	}
	return b, nil
}

func (b *Bucket) object(key string) (string, error) {
	if !store.ValidFileKey(key) {
		return "", fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	if b.prefix == "" {
		return key, nil
	}
	return path.Join(b.prefix, key), nil
}

// Put writes data under key in one PUT: S3 makes an object visible whole
// or not at all.
func (b *Bucket) Put(ctx context.Context, key string, data []byte) error {
	name, err := b.object(key)
	if err != nil {
		return err
	}
	_, err = b.client.PutObject(ctx, b.bucket, name, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return fmt.Errorf("s3: put %s: %w", key, err)
	}
	return nil
}

// Open returns the object under key, read in ranges as the caller seeks;
// store.ErrNotFound when there is none.
func (b *Bucket) Open(ctx context.Context, key string) (io.ReadSeekCloser, time.Time, error) {
	name, err := b.object(key)
	if err != nil {
		return nil, time.Time{}, store.ErrNotFound
	}
	obj, err := b.client.GetObject(ctx, b.bucket, name, minio.GetObjectOptions{})
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("s3: open %s: %w", key, err)
	}
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		if isNotFound(err) {
			return nil, time.Time{}, store.ErrNotFound
		}
		return nil, time.Time{}, fmt.Errorf("s3: open %s: %w", key, err)
	}
	return obj, info.LastModified, nil
}

func isNotFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.Code == minio.NoSuchKey || r.StatusCode == http.StatusNotFound
}

// Delete removes the object under key; a missing one is not an error.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	name, err := b.object(key)
	if err != nil {
		return err
	}
	if err := b.client.RemoveObject(ctx, b.bucket, name, minio.RemoveObjectOptions{}); err != nil && !isNotFound(err) {
		return fmt.Errorf("s3: delete %s: %w", key, err)
	}
	return nil
}

// Ping checks that the bucket answers (readiness).
func (b *Bucket) Ping(ctx context.Context) error {
	_, err := b.client.BucketExists(ctx, b.bucket)
	return err
}

var _ store.FileSweeper = (*Bucket)(nil)

// folder is the object name prefix of the folder key prefix ("" for the
// whole store), ending in "/" unless it is the bucket's root.
func (b *Bucket) folder(prefix string) (string, error) {
	if prefix == "" {
		if b.prefix == "" {
			return "", nil
		}
		return b.prefix + "/", nil
	}
	name, err := b.object(prefix)
	if err != nil {
		return "", err
	}
	return name + "/", nil
}

// objects lists the objects under the folder key prefix, at every depth.
func (b *Bucket) objects(ctx context.Context, prefix string) ([]minio.ObjectInfo, error) {
	p, err := b.folder(prefix)
	if err != nil {
		return nil, err
	}
	var out []minio.ObjectInfo
	for o := range b.client.ListObjectsIter(ctx, b.bucket, minio.ListObjectsOptions{Prefix: p, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("s3: list %s: %w", prefix, o.Err)
		}
		out = append(out, o)
	}
	return out, nil
}

// removeObjects deletes the objects in batches (S3's multi-object
// delete) and returns how many went.
func (b *Bucket) removeObjects(ctx context.Context, objs []minio.ObjectInfo) (int, error) {
	if len(objs) == 0 {
		return 0, nil
	}
	ch := make(chan minio.ObjectInfo)
	go func() {
		defer close(ch)
		for _, o := range objs {
			select {
			case ch <- minio.ObjectInfo{Key: o.Key}:
			case <-ctx.Done():
				return
			}
		}
	}()
	failed := 0
	var first error
	for e := range b.client.RemoveObjects(ctx, b.bucket, ch, minio.RemoveObjectsOptions{}) {
		if isNotFound(e.Err) {
			continue
		}
		failed++
		if first == nil {
			first = fmt.Errorf("s3: delete %s: %w", e.ObjectName, e.Err)
		}
	}
	if err := ctx.Err(); err != nil && first == nil {
		return 0, err
	}
	return len(objs) - failed, first
}

// RemoveOlder removes the objects under the folder key prefix ("" for
// all) last modified before t; S3 has no folders to remove after them.
func (b *Bucket) RemoveOlder(ctx context.Context, prefix string, before time.Time) (int, error) {
	objs, err := b.objects(ctx, prefix)
	if err != nil {
		return 0, err
	}
	old := objs[:0]
	for _, o := range objs {
		if o.LastModified.Before(before) {
			old = append(old, o)
		}
	}
	return b.removeObjects(ctx, old)
}

// RemoveTemp aborts the multipart uploads under the store's prefix
// initiated before t: a Put larger than minio-go's single-PUT size goes in
// parts, and an interrupted one leaves parts the bucket keeps (and bills)
// until aborted. They are the bucket's counterpart of a folder's .put-*
// files; a single PUT leaves nothing behind.
func (b *Bucket) RemoveTemp(ctx context.Context, before time.Time) (int, error) {
	p, err := b.folder("")
	if err != nil {
		return 0, err
	}
	core := minio.Core{Client: b.client}
	n := 0
	for u := range b.client.ListIncompleteUploads(ctx, b.bucket, p, true) {
		if u.Err != nil {
			return n, fmt.Errorf("s3: list uploads: %w", u.Err)
		}
		if !u.Initiated.Before(before) {
			continue
		}
		if err := core.AbortMultipartUpload(ctx, b.bucket, u.Key, u.UploadID); err != nil && !isNotFound(err) {
			return n, fmt.Errorf("s3: abort upload of %s: %w", u.Key, err)
		}
		n++
	}
	return n, nil
}

// List returns the names directly under the folder key prefix: its
// objects and its "subfolders" (common prefixes).
func (b *Bucket) List(ctx context.Context, prefix string) ([]string, error) {
	p, err := b.folder(prefix)
	if err != nil {
		return nil, err
	}
	var out []string
	for o := range b.client.ListObjectsIter(ctx, b.bucket, minio.ListObjectsOptions{Prefix: p}) {
		if o.Err != nil {
			return nil, fmt.Errorf("s3: list %s: %w", prefix, o.Err)
		}
		if name := strings.TrimSuffix(strings.TrimPrefix(o.Key, p), "/"); name != "" {
			out = append(out, name)
		}
	}
	return out, nil
}

// RemoveAll removes every object under the folder key prefix.
func (b *Bucket) RemoveAll(ctx context.Context, prefix string) error {
	objs, err := b.objects(ctx, prefix)
	if err != nil {
		return err
	}
	_, err = b.removeObjects(ctx, objs)
	return err
}
