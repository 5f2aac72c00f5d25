import sys, json as js; sys.path.insert(0,'/tmp/audit4')
from common import *
rng=np.random.default_rng(77)
def r(*s): return rng.standard_normal(s).astype(np.float32)
cmds=[]
a=save('A.npy',r(2,3,5,4)); b=save('B.npy',r(3,4,6))
cmds.append(('matmul',['matmul',a,b],'product'))
cmds.append(('softmax',['softmax',save('S.npy',r(2,3,4,7))],None))
cmds.append(('concat',['concat',save('c1.npy',r(2,3,4)),save('c2.npy',r(2,5,4)),'--axis','-2'],'concat'))
cmds.append(('positions',['positions','--shape','7,9'],None))
cmds.append(('random',['random','--seed','1','--shape','2,3,5','--shape','4'],None))
cmds.append(('random1',['random','--seed','1','--shape','7'],None))
bad=0;n=0
for nm,args,res in cmds:
    ref=npz(args,'f2')
    for fmt in ['csv','tsv','json']:
        p=run(args+['--format',fmt]); fn=W+'/f2.'+fmt; open(fn,'wb').write(p.stdout)
        for k in ref:
            sel=fn+':'+k if len(ref)>1 else fn
            q=run(['concat',sel,'--format','npy','-o',W+'/f2rb.npy'],check=False); n+=1
            if q.returncode: bad+=1; print('FAIL readback',nm,fmt,k,q.stderr.decode()[:200]); continue
            o=np.load(W+'/f2rb.npy')
            if o.size!=ref[k].size or not np.array_equal(o.reshape(-1),ref[k].reshape(-1)): bad+=1; print('FAIL values',nm,fmt,k,o.shape,ref[k].shape)
            elif o.shape!=ref[k].shape: print('info shape',nm,fmt,k,o.shape,ref[k].shape)
print('fmt2 checks',n,'bad',bad)
