// A closed-loop HTTP/1.1 load client: THREADS keep-alive connections, each sending the same
#define _GNU_SOURCE
// POST again as soon as the answer is complete, for SECONDS. The same client measures the
// daemon (JSON) and cupsd (IPP Print-Job), so neither gets a faster client than the other.
//   closed-loop HOST PORT PATH CONTENT-TYPE BODY-FILE THREADS SECONDS
// Prints: requests, requests/s, p50 and p99 latency in ms, and how many answers were not 2xx
// (for IPP: HTTP 200 with an IPP status other than successful-ok*).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host, *path, *type;
static int port, seconds;
static char *body;
static size_t body_length;
static int ipp;
static double deadline;

typedef struct {
  double *latencies;
  size_t count, capacity;
  long failures;
} Result;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int connect_to_server(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, host, &address.sin_addr);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
    perror("connect");
    exit(1);
  }
  return fd;
}

// Reads into buf until `need` bytes are buffered; returns 0 on a closed connection.
static int fill(int fd, char *buf, size_t *have, size_t need, size_t size) {
  while (*have < need) {
    if (need > size) return 0;
    ssize_t n = read(fd, buf + *have, size - *have);
    if (n <= 0) return 0;
    *have += (size_t)n;
  }
  return 1;
}

// Reads one answer; returns its HTTP status (with the IPP status folded in), -1 if the
// connection closed, and sets *keep to whether it stays open.
static int read_answer(int fd, char *buf, size_t size, int *keep) {
  size_t have = 0;
  char *end = NULL;
  while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
    if (!fill(fd, buf, &have, have + 1, size)) return -1;
  }
  *end = 0;
  int status = atoi(buf + 9);
  size_t header = (size_t)(end - buf) + 4;
  *keep = strcasestr(buf, "\nConnection: close") == NULL;
  long length = -1;
  char *field = strcasestr(buf, "\nContent-Length:");
  if (field) length = atol(field + 16);
  int chunked = strcasestr(buf, "\nTransfer-Encoding: chunked") != NULL;
  // The body: copied to the front of buf (IPP's status is in its bytes 2-3).
  memmove(buf, buf + header, have - header);
  have -= header;
  size_t body_bytes = 0;
  if (chunked) {
    size_t at = 0;  // parse position in buf
    for (;;) {
      char *line;
      while (!(line = memmem(buf + at, have - at, "\r\n", 2))) {
        if (!fill(fd, buf, &have, have + 1, size)) return -1;
      }
      long chunk = strtol(buf + at, NULL, 16);
      size_t data = (size_t)(line - buf) + 2;
      if (!fill(fd, buf, &have, data + (size_t)chunk + 2, size)) return -1;
      memmove(buf + body_bytes, buf + data, (size_t)chunk);  // compact the body at the front
      size_t rest = have - (data + (size_t)chunk + 2);
      memmove(buf + body_bytes + chunk, buf + data + chunk + 2, rest);
      body_bytes += (size_t)chunk;
      have = body_bytes + rest;
      at = body_bytes;
      if (chunk == 0) break;
    }
  } else if (length >= 0) {
    if (!fill(fd, buf, &have, (size_t)length, size)) return -1;
    body_bytes = (size_t)length;
  }
  if (ipp && status == 200 && body_bytes >= 4) {
    int ipp_status = ((unsigned char)buf[2] << 8) | (unsigned char)buf[3];
    if (ipp_status > 0x00FF) status = 500;
  }
  return status;
}

static void *run(void *argument) {
  Result *result = argument;
  size_t size = 1 << 20;
  char *buf = malloc(size);
  char request[1024];
  int header = snprintf(request, sizeof request,
                        "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n", path,
                        host, port, type, body_length);
  int fd = connect_to_server();
  while (now() < deadline) {
    double start = now();
    if (write(fd, request, (size_t)header) != header || write(fd, body, body_length) != (ssize_t)body_length) {
      close(fd);
      fd = connect_to_server();
      continue;
    }
    int keep = 1;
    int status = read_answer(fd, buf, size, &keep);
    if (status < 0) {
      close(fd);
      fd = connect_to_server();
      continue;
    }
    if (result->count == result->capacity) {
      result->capacity = result->capacity ? result->capacity * 2 : 4096;
      result->latencies = realloc(result->latencies, result->capacity * sizeof(double));
    }
    result->latencies[result->count++] = (now() - start) * 1000;
    if (status < 200 || status > 299) result->failures++;
    if (!keep) {
      close(fd);
      fd = connect_to_server();
    }
  }
  close(fd);
  free(buf);
  return NULL;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 8) {
    fprintf(stderr, "usage: closed-loop HOST PORT PATH CONTENT-TYPE BODY-FILE THREADS SECONDS\n");
    return 2;
  }
  host = argv[1], port = atoi(argv[2]), path = argv[3], type = argv[4];
  int threads = atoi(argv[6]);
  seconds = atoi(argv[7]);
  ipp = strcmp(type, "application/ipp") == 0;
  FILE *file = fopen(argv[5], "rb");
  if (!file) {
    perror(argv[5]);
    return 2;
  }
  fseek(file, 0, SEEK_END);
  body_length = (size_t)ftell(file);
  rewind(file);
  body = malloc(body_length);
  if (fread(body, 1, body_length, file) != body_length) return 2;
  fclose(file);
  deadline = now() + seconds;
  pthread_t ids[64];
  Result results[64] = {0};
  if (threads < 1 || threads > 64) return 2;
  for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, run, &results[i]);
  size_t total = 0;
  long failures = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(ids[i], NULL);
    total += results[i].count;
    failures += results[i].failures;
  }
  double *all = malloc((total ? total : 1) * sizeof(double));
  size_t k = 0;
  for (int i = 0; i < threads; i++) {
    memcpy(all + k, results[i].latencies, results[i].count * sizeof(double));
    k += results[i].count;
  }
  qsort(all, total, sizeof(double), compare);
  printf("%zu %.0f %.2f %.2f %ld\n", total, total / (double)seconds, total ? all[total / 2] : 0,
         total ? all[(size_t)(total * 0.99)] : 0, failures);
  return 0;
}
