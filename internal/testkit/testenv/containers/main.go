// Command containers starts Elasticsearch 8.19 and Kafka in Docker with
// testcontainers-go, for `make test` on a machine whose Docker engine
// answers (scripts/test.sh, mode b). It writes the AUDITLOG_TEST_* exports
// to the file named by -env once both are healthy, then waits; SIGTERM or
// SIGINT stops both containers (testcontainers' reaper also removes them
// if this process dies).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tces "github.com/testcontainers/testcontainers-go/modules/elasticsearch"
	tckafka "github.com/testcontainers/testcontainers-go/modules/kafka"
)

func main() {
	envFile := flag.String("env", "", "file to write the AUDITLOG_TEST_* exports to")
	esImage := flag.String("es-image", "docker.elastic.co/elasticsearch/elasticsearch:8.19.7", "Elasticsearch image")
	kafkaImage := flag.String("kafka-image", "confluentinc/confluent-local:7.9.0", "Kafka (KRaft) image")
	flag.Parse()
	if *envFile == "" {
		log.Fatal("-env is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	esC, err := tces.Run(startCtx, *esImage,
		testcontainers.WithEnv(map[string]string{
			"xpack.security.enabled": "false",
			"ES_JAVA_OPTS":           "-Xms1g -Xmx1g",
			"cluster.routing.allocation.disk.threshold_enabled": "false",
			"cluster.max_shards_per_node":                       "20000",
		}))
	if err != nil {
		log.Fatalf("starting Elasticsearch: %v", err)
	}
	defer func() { _ = testcontainers.TerminateContainer(esC) }()
	kC, err := tckafka.Run(startCtx, *kafkaImage, tckafka.WithClusterID("auditlog-test"))
	if err != nil {
		log.Fatalf("starting Kafka: %v", err)
	}
	defer func() { _ = testcontainers.TerminateContainer(kC) }()
	brokers, err := kC.Brokers(startCtx)
	if err != nil {
		log.Fatalf("kafka brokers: %v", err)
	}
	url := strings.Replace(esC.Settings.Address, "https://", "http://", 1)
	env := fmt.Sprintf("export AUDITLOG_TEST_ES_URL=%s\nexport AUDITLOG_TEST_KAFKA_BROKERS=%s\nexport AUDITLOG_TEST_SERVICES=docker\n",
		url, strings.Join(brokers, ","))
	if err := os.WriteFile(*envFile, []byte(env), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("services ready: %s kafka %v", url, brokers)
	<-ctx.Done()
}
