#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static char *arena; static size_t used, cap;
static void *bump(size_t n){ n=(n+15)&~15ul; if(used+n>cap){cap=(cap?cap*2:1<<24); arena=NULL;} if(!arena){arena=malloc(cap);used=0;} void*p=arena+used; used+=n; return p;}
static void nofree(void*p){(void)p;}
int main(int argc,char**argv){
  FILE*f=fopen("a.json","r"); fseek(f,0,SEEK_END); long n=ftell(f); rewind(f); char*b=malloc(n+1); fread(b,1,n,f); b[n]=0;
  if(argc>1) json_set_alloc_funcs(bump,nofree);
  struct timespec t0,t1; clock_gettime(CLOCK_MONOTONIC,&t0);
  json_error_t e; json_t*o=json_loadb(b,n,0,&e);
  clock_gettime(CLOCK_MONOTONIC,&t1);
  printf("%s parse %.1f ms (%zu jobs)\n", argc>1?"arena":"malloc", (t1.tv_sec-t0.tv_sec)*1e3+(t1.tv_nsec-t0.tv_nsec)/1e6, json_array_size(json_object_get(o,"jobs")));
}
