/**
 * Webhooks (issue 22), first part: blog and comment writes record one delivery per subscribed active
 * webhook, once per event id, and the address check refuses what would reach an internal network.
 */
import { DeliveryModel, WebhookModel } from '../src/models/webhook.model';
import { isPublicAddress } from '../src/lib/public-address';
import { createWebhookEventRecorder } from '../src/services/webhook-events';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { registerUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

const deliveriesFor = async (blogId: string) =>
  (await DeliveryModel.find({ blogId }).sort({ occurredAt: 1, _id: 1 }).lean()).map((delivery) => delivery.event);

describe('recording events', () => {
  it('records each write of a post and its comments for the webhooks subscribed, and only those', async () => {
    await WebhookModel.create({
      url: 'https://hooks.example.com/a',
      events: [
        'blog.published',
        'blog.updated',
        'blog.unpublished',
        'blog.deleted',
        'comment.created',
        'comment.deleted',
      ],
      secret: 's',
    });
    await WebhookModel.create({
      url: 'https://hooks.example.com/b',
      events: ['comment.created'],
      secret: 's',
      active: false,
    });

    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await api.as(admin).put(`/blogs/${blog._id}`).field('title', 'Renamed').expect(200);
    await api.as(admin).put(`/blogs/${blog._id}`).field('status', 'draft').expect(200);
    await api.as(admin).put(`/blogs/${blog._id}`).field('status', 'published').expect(200);
    const comment = await api.as(reader).post(`/comments/blog/${blog._id}`).send({ content: 'Hi' }).expect(201);
    await api.as(reader).delete(`/comments/${comment.body.comment._id}`).expect(204);
    await api.as(admin).delete(`/blogs/${blog._id}`).expect(204);

    expect(await deliveriesFor(blog._id)).toEqual([
      'blog.published',
      'blog.updated',
      'blog.unpublished',
      'blog.published',
      'comment.created',
      'comment.deleted',
      'blog.deleted',
    ]);
    const published = await DeliveryModel.findOne({ blogId: blog._id, event: 'blog.published' }).lean();
    expect(JSON.parse(published!.body)).toMatchObject({ event: 'blog.published', data: { _id: blog._id } });
    expect(published!.status).toBe('pending');
  });

  it('records comment.deleted for each comment of an account deleted with it, as for one deleted by hand', async () => {
    const hook = await WebhookModel.create({
      url: 'https://hooks.example.com/c',
      events: ['comment.deleted'],
      secret: 's',
    });
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const leaving = await registerUser(ctx.app);
    const ids: string[] = [];
    for (const content of ['One', 'Two'])
      ids.push(
        (await api.as(leaving).post(`/comments/blog/${blog._id}`).send({ content }).expect(201)).body.comment._id,
      );

    await api.as(leaving).delete('/users/current').expect(204);

    const deleted = await DeliveryModel.find({ webhook: hook._id, blogId: blog._id }).lean();
    expect(
      deleted.map((delivery) => JSON.parse(delivery.body).data).sort((a, b) => a._id.localeCompare(b._id)),
    ).toEqual(ids.sort().map((_id) => ({ _id, blog: blog._id })));
  });

  it('records one event id once, however many times (a retry, two instances)', async () => {
    const recorder = createWebhookEventRecorder();
    const event = {
      id: 'blog.deleted:x:1',
      name: 'blog.deleted' as const,
      blogId: 'x',
      payload: {},
      occurredAt: new Date(),
    };
    await Promise.all([recorder.record(event), recorder.record(event)]);
    await recorder.record(event);
    expect(await DeliveryModel.countDocuments({ eventId: event.id })).toBe(1);
  });
});

describe('public addresses', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['224.0.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['::', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['[::ffff:7f00:1]', false],
    ['::ffff:10.0.0.1', false],
    // deprecated or special forms a first audit found accepted
    ['::127.0.0.1', false],
    ['fec0::1', false],
    ['2002:7f00:1::', false],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['192.0.2.1', false],
    ['2001:db8::1', false],
    ['localhost', false],
    ['93.184.216.34', true],
    ['2606:2800:220:1:248:1893:25c8:1946', true],
    ['2001:4860:4860::8888', true],
    ['::ffff:93.184.216.34', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
