// Where a process allocates: an LD_PRELOAD shim counting malloc and posix_memalign calls by return address (the 25
// sites with most calls, at exit, with their average size). Used on Kairos 5b03cc6 (glibc malloc):
//   gcc -O2 -shared -fPIC -o who.so allocation-sites.c -ldl
//   taskset -c 0-1 env LD_PRELOAD=./who.so kairos benchmark --movetime 3000 --num-positions 1 --smart-pruning-factor 0
// A build with jemalloc (unprefixed) answers malloc itself, before the shim: nothing is counted there.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>
#define SLOTS 4096
static _Atomic uintptr_t key[SLOTS]; static atomic_long cnt[SLOTS], tot[SLOTS];
static void *(*real_malloc)(size_t);
static int (*real_pm)(void **, size_t, size_t);
static void note(void *ra, size_t s){ uintptr_t k=(uintptr_t)ra; unsigned h=(k>>4)%SLOTS; for(int i=0;i<SLOTS;i++){unsigned j=(h+i)%SLOTS; uintptr_t z=0; if(key[j]==k || atomic_compare_exchange_strong(&key[j],&z,k) || key[j]==k){cnt[j]++; tot[j]+=s; return;}} }
void *malloc(size_t s){ if(!real_malloc) real_malloc=dlsym(RTLD_NEXT,"malloc"); note(__builtin_return_address(0),s); return real_malloc(s);}
int posix_memalign(void **p, size_t a, size_t s){ if(!real_pm) real_pm=dlsym(RTLD_NEXT,"posix_memalign"); note((char*)__builtin_return_address(0)+1,s); return real_pm(p,a,s);}
__attribute__((destructor)) static void report(void){ for(int r=0;r<25;r++){long best=0;int bi=-1; for(int j=0;j<SLOTS;j++) if(key[j]&&cnt[j]>best){best=cnt[j];bi=j;} if(bi<0)break; Dl_info d; void*a=(void*)(key[bi]&~(uintptr_t)1); dladdr(a,&d); fprintf(stderr,"%ld calls avg %ld B %s %s %s+0x%lx\n",cnt[bi],tot[bi]/cnt[bi],(key[bi]&1)?"memalign":"malloc",d.dli_fname?d.dli_fname:"?",d.dli_sname?d.dli_sname:"?",(long)((char*)a-(char*)(d.dli_sname?d.dli_saddr:d.dli_fbase))); cnt[bi]=0;} }
