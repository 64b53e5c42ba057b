package s3_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambua/tambua/internal/s3test"
	"github.com/tambua/tambua/server/s3"
	"github.com/tambua/tambua/server/store"
	"github.com/tambua/tambua/server/store/storetest"
)

func TestMain(m *testing.M) { s3test.Main(m) }

func TestConformance(t *testing.T) {
	srv := s3test.Shared(t)
	srv.Env(t)
	storetest.RunFiles(t, func(t *testing.T) store.FileStore {
		b, err := s3.Open(context.Background(), srv.NewBucketURL())
		require.NoError(t, err)
		return b
	})
}

// TestPrefix: two stores on one bucket under different prefixes do not
// see each other's files.
func TestPrefix(t *testing.T) {
	srv := s3test.Shared(t)
	srv.Env(t)
	ctx := context.Background()
	base := srv.NewBucketURL()
	cfg, err := s3.ParseURL(base)
	require.NoError(t, err)
	cfg.Prefix = "one"
	one, err := s3.New(ctx, cfg)
	require.NoError(t, err)
	cfg.Prefix, cfg.Create = "two/deeper", false
	two, err := s3.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, one.Put(ctx, "v/a/front.jpg", []byte("1")))
	_, _, err = two.Open(ctx, "v/a/front.jpg")
	assert.ErrorIs(t, err, store.ErrNotFound)
	f, _, err := one.Open(ctx, "v/a/front.jpg")
	require.NoError(t, err)
	f.Close()
	require.NoError(t, one.Ping(ctx))
}

func TestMissingBucketAndBadCredentials(t *testing.T) {
	srv := s3test.Shared(t)
	srv.Env(t)
	ctx := context.Background()
	cfg, err := s3.ParseURL(srv.NewBucketURL())
	require.NoError(t, err)
	cfg.Create = false
	_, err = s3.New(ctx, cfg)
	assert.ErrorContains(t, err, "does not exist", "no bucket is made unless asked")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	t.Setenv("MINIO_ROOT_PASSWORD", "")
	cfg.Create = true
	_, err = s3.New(ctx, cfg)
	assert.Error(t, err, "the server checks the signature")
}

func TestParseURL(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		in   string
		want s3.Config
		err  string
	}{
		{in: "s3://bucket", want: s3.Config{Bucket: "bucket"}},
		{in: "s3://bucket/some/prefix/?region=eu-west-1", want: s3.Config{Bucket: "bucket", Prefix: "some/prefix", Region: "eu-west-1"}},
		{in: "s3://b?endpoint=http://127.0.0.1:9000&path_style=true&create=1",
			want: s3.Config{Bucket: "b", Endpoint: "127.0.0.1:9000", Insecure: true, PathStyle: &yes, Create: true}},
		{in: "s3://b?endpoint=minio.internal:9000&path_style=false", want: s3.Config{Bucket: "b", Endpoint: "minio.internal:9000", PathStyle: &no}},
		{in: "s3://b?endpoint=https://s3.example.com", want: s3.Config{Bucket: "b", Endpoint: "s3.example.com"}},
		{in: "http://bucket", err: "want s3://"},
		{in: "s3:///prefix", err: "want s3://"},
		{in: "s3://key:secret@bucket", err: "credentials do not go in the URL"},
		{in: "s3://b?endpoint=ftp://x", err: "endpoint"},
		{in: "s3://b?endpoint=http://x/path", err: "endpoint"},
		{in: "s3://b?path_style=maybe", err: "path_style"},
		{in: "s3://b?secret=x", err: "unknown parameter"},
		{in: "s3://b/../up", err: "prefix"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := s3.ParseURL(tc.in)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"s3://b", "s3://b/p?endpoint=http://h:1&create=true", "s3://%zz", "s3://b?endpoint=::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := s3.ParseURL(raw)
		if err != nil {
			return
		}
		if c.Bucket == "" {
			t.Fatalf("%q: accepted without a bucket", raw)
		}
		if c.Prefix != "" && !store.ValidFileKey(c.Prefix) {
			t.Fatalf("%q: accepted prefix %q", raw, c.Prefix)
		}
	})
}

// TestRemoveTempAbortsUploads: a multipart upload left open (a large Put
// interrupted) is aborted by RemoveTemp once older than the bound, and
// only under the store's prefix.
func TestRemoveTempAbortsUploads(t *testing.T) {
	srv := s3test.Shared(t)
	srv.Env(t)
	ctx := context.Background()
	cfg, err := s3.ParseURL(srv.NewBucketURL())
	require.NoError(t, err)
	cfg.Prefix = "mine"
	b, err := s3.New(ctx, cfg)
	require.NoError(t, err)
	core, err := minio.NewCore(srv.Addr, &minio.Options{Creds: credentials.NewStaticV4(srv.Access, srv.Secret, ""),
		Region: cfg.Region, BucketLookup: minio.BucketLookupPath})
	require.NoError(t, err)
	_, err = core.NewMultipartUpload(ctx, cfg.Bucket, "mine/v/a/front.jpg", minio.PutObjectOptions{})
	require.NoError(t, err)
	_, err = core.NewMultipartUpload(ctx, cfg.Bucket, "other/v/a/front.jpg", minio.PutObjectOptions{})
	require.NoError(t, err)
	uploads := func() []string {
		var keys []string
		for u := range core.ListIncompleteUploads(ctx, cfg.Bucket, "", true) {
			require.NoError(t, u.Err)
			keys = append(keys, u.Key)
		}
		sort.Strings(keys)
		return keys
	}
	require.Equal(t, []string{"mine/v/a/front.jpg", "other/v/a/front.jpg"}, uploads())

	n, err := b.RemoveTemp(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "a fresh upload may still be running")
	n, err = b.RemoveTemp(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{"other/v/a/front.jpg"}, uploads(), "another prefix's upload is kept")
}
