// Package blob is where the service's files go, split from the domain
// root (issue 54): the Store interface that localfs (a directory) and s3
// (a bucket) implement, the keys it accepts (CheckKey), and the rules of
// an S3 bucket name and key prefix a tenant may give (ValidBucket,
// ValidPrefix) for its periodic export or its S3 stream.
package blob
