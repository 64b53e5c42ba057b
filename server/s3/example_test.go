package s3_test

import (
	"fmt"

	"github.com/tambua/tambua/server/s3"
)

// The address `tambua serve --files` takes for a MinIO (or versitygw, Ceph
// RGW, ...) bucket inside the cluster; credentials come from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
func ExampleParseURL() {
	c, err := s3.ParseURL("s3://kyc-images/prod?endpoint=http://minio:9000&path_style=true&create=true")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Bucket, c.Prefix, c.Endpoint, c.Insecure, *c.PathStyle, c.Create)
	_, err = s3.ParseURL("s3://AKIA:secret@kyc-images")
	fmt.Println(err)
	// Output:
	// kyc-images prod minio:9000 true true true
	// s3: credentials do not go in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY
}
