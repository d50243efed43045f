#include <stdio.h>

#define MAX_LEN 64

typedef struct node {
    int value;
    struct node *next;
} node_t;

typedef int (*compare_fn)(const void *, const void *);

static int count(const node_t *head);

/* count walks the list. */
static int count(const node_t *head)
{
    int n = 0;
    while (head) {
        n++;
        head = head->next;
    }
    return n;
}

int main(int argc, char **argv) {
    char c = '{';
    printf("%d %c\n", count(NULL), c);
    return 0;
}
